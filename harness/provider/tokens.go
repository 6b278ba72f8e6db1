package provider

import (
	"fmt"
	"strings"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// encodings caches the tokenizers, loaded once each from the BPE files
// embedded by tiktoken-go-loader: nothing is downloaded at run time.
var encodings = struct {
	sync.Mutex
	loaded map[string]*tiktoken.Tiktoken
}{loaded: map[string]*tiktoken.Tiktoken{}}

// loaderOnce installs the offline loader before the first encoding loads.
var loaderOnce sync.Once

// EncodingFor names the tiktoken encoding of an OpenAI-family model
// ("o200k_base" or "cl100k_base"), or "" when the model is not one.
func EncodingFor(model string) string {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	switch {
	case strings.HasPrefix(m, "gpt-4o"), strings.HasPrefix(m, "gpt-4.1"), strings.HasPrefix(m, "gpt-4.5"),
		strings.HasPrefix(m, "gpt-5"), strings.HasPrefix(m, "chatgpt-"), strings.HasPrefix(m, "gpt-oss"),
		strings.HasPrefix(m, "o1"), strings.HasPrefix(m, "o3"), strings.HasPrefix(m, "o4"):
		return tiktoken.MODEL_O200K_BASE
	case strings.HasPrefix(m, "gpt-4"), strings.HasPrefix(m, "gpt-3.5"), strings.HasPrefix(m, "text-embedding"):
		return tiktoken.MODEL_CL100K_BASE
	}
	return ""
}

// encoding returns the named tokenizer, loading it on first use.
func encoding(name string) (*tiktoken.Tiktoken, error) {
	loaderOnce.Do(func() { tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader()) })
	encodings.Lock()
	defer encodings.Unlock()
	if enc, ok := encodings.loaded[name]; ok {
		return enc, nil
	}
	enc, err := tiktoken.GetEncoding(name)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", name, err)
	}
	encodings.loaded[name] = enc
	return enc, nil
}

// CountTokens counts the tokens of text for model. For OpenAI-family models
// it runs the real tokenizer and reports exact=true; for every other model
// it returns an estimate of one token per four bytes (rounded up), which is
// usually within ±30% for English and code, and reports exact=false.
func CountTokens(model, text string) (n int, exact bool) {
	if name := EncodingFor(model); name != "" {
		if enc, err := encoding(name); err == nil {
			return len(enc.EncodeOrdinary(text)), true
		}
	}
	return EstimateTokens(text), false
}

// EstimateTokens is the bytes/4 estimate used for models without a known
// tokenizer.
func EstimateTokens(text string) int {
	return (len(text) + 3) / 4
}

// perMessageOverhead approximates the tokens each message's framing costs.
const perMessageOverhead = 4

// CountRequestTokens counts a request's prompt tokens for its model: the
// system prompt, every message (text, tool calls, results) with a small
// per-message overhead, and the tools' names, descriptions and schemas.
// exact is false when the model has no known tokenizer; even when true, the
// provider's own usage figures are authoritative.
func CountRequestTokens(req Request) (n int, exact bool) {
	count := func(s string) {
		k, ex := CountTokens(req.Model, s)
		n, exact = n+k, ex
	}
	exact = EncodingFor(req.Model) != ""
	count(req.System)
	for _, m := range req.Messages {
		n += perMessageOverhead
		count(m.Text)
		for _, c := range m.ToolCalls {
			count(c.Name)
			count(string(c.Arguments))
		}
	}
	for _, t := range req.Tools {
		count(t.Name + " " + t.Description + " " + string(t.Schema))
	}
	return n, exact
}
