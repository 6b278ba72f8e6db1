package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The APIs' own addresses, used when a model is registered without a base URL.
const (
	DefaultOpenAIURL    = "https://api.openai.com/v1"
	DefaultAnthropicURL = "https://api.anthropic.com/v1"
)

// ListModels asks the endpoint of a provider kind which models it serves: GET models under
// the API's base URL (OpenAI, Anthropic with its headers, any OpenAI-compatible server, the
// Gemini API's models.list); an
// Ollama server without /v1/models is asked through /api/tags. Give ctx a deadline.
func ListModels(ctx context.Context, kind string, cfg Config) ([]RemoteModel, error) {
	if kind == KindGemini {
		return listGemini(ctx, cfg)
	}
	base, err := listBase(kind, cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	out, err := getModels(ctx, client, kind, base, cfg.APIKey)
	if err != nil && kind == KindOpenAICompatible {
		if tags, terr := ListOllamaModels(ctx, base); terr == nil {
			return ollamaRemote(tags), nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: list models at %s: %w", cfg.name(kind), base, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// listBase is the base URL the models listing lives under.
func listBase(kind, base string) (string, error) {
	switch {
	case base != "":
	case kind == KindOpenAI:
		base = DefaultOpenAIURL
	case kind == KindAnthropic:
		base = DefaultAnthropicURL
	default:
		return "", fmt.Errorf("provider %s: a base URL is required to list models", kind)
	}
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("provider %s: bad base URL %q", kind, base)
	}
	if u.Path == "" || u.Path == "/" {
		base = strings.TrimSuffix(base, "/") + "/v1" // where every one of these APIs lives
	}
	return strings.TrimSuffix(base, "/"), nil
}

// getModels fetches and decodes one models listing.
func getModels(ctx context.Context, client *http.Client, kind, base, key string) ([]RemoteModel, error) {
	q := ""
	if kind == KindAnthropic {
		q = "?limit=1000"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/models"+q, nil)
	if err != nil {
		return nil, err
	}
	switch {
	case kind == KindAnthropic:
		req.Header.Set("X-Api-Key", key)
		req.Header.Set("Anthropic-Version", "2023-06-01")
	case key != "":
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 32<<20))
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, httpError(kind, &httpFailure{status: res.StatusCode, header: res.Header, body: body}, nil)
	}
	return decodeModels(body)
}

// modelEntry is one entry of a models listing, with the extensions of vLLM (max_model_len),
// llama.cpp (meta.n_ctx_train) and OpenRouter (context_length, pricing, top_provider).
type modelEntry struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	DisplayName   string `json:"display_name"`
	ContextLength int    `json:"context_length"`
	MaxModelLen   int    `json:"max_model_len"`
	Meta          struct {
		NCtxTrain int `json:"n_ctx_train"`
	} `json:"meta"`
	TopProvider struct {
		MaxCompletionTokens int `json:"max_completion_tokens"`
	} `json:"top_provider"`
	Pricing map[string]json.RawMessage `json:"pricing"`
}

// decodeModels reads {"data":[...]}.
func decodeModels(body []byte) ([]RemoteModel, error) {
	var list struct {
		Data []modelEntry `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("decode the models listing: %w", err)
	}
	out := make([]RemoteModel, 0, len(list.Data))
	for _, m := range list.Data {
		if m.ID == "" {
			continue
		}
		out = append(out, RemoteModel{ID: m.ID, Name: firstNonEmpty(m.DisplayName, m.Name),
			ContextWindow: max(m.ContextLength, m.MaxModelLen, m.Meta.NCtxTrain), MaxOutput: m.TopProvider.MaxCompletionTokens,
			PriceIn: perMillion(m.Pricing["prompt"]), PriceOut: perMillion(m.Pricing["completion"]),
			PriceCachedIn: perMillion(m.Pricing["input_cache_read"]), PriceCacheWrite: perMillion(m.Pricing["input_cache_write"])})
	}
	return out, nil
}

// perMillion converts a per-token price (a string or a number) to dollars per million tokens.
func perMillion(raw json.RawMessage) float64 {
	s := strings.Trim(string(raw), `"`)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0
	}
	return f * 1e6
}

// ollamaRemote converts an Ollama tags listing.
func ollamaRemote(tags []OllamaModel) []RemoteModel {
	out := make([]RemoteModel, 0, len(tags))
	for _, t := range tags {
		name := strings.TrimSpace(strings.Join([]string{t.Family, t.ParameterSize, t.Quantization}, " "))
		out = append(out, RemoteModel{ID: t.Name, Name: name, Size: t.Size})
	}
	return out
}
