package provider

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"exo/harness/provider/providertest"
)

// geminiDir holds the Gemini streams: recorded/ from the live API, the rest reconstructed.
var geminiDir = filepath.Join("..", "..", "testdata", "providers", "gemini")

// geminiFile is a fixture's bytes.
func geminiFile(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(geminiDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// geminiRequest0 rebuilds exo's request from a cassette's first recorded request: the system
// prompt, the user's text and the tools with their schemas.
func geminiRequest0(t *testing.T, c *providertest.Cassette) Request {
	t.Helper()
	var body struct {
		Contents []struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"contents"`
		SystemInstruction struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"systemInstruction"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(c.Interactions[0].Request.Body), &body); err != nil {
		t.Fatal(err)
	}
	u := c.Interactions[0].Request.URL
	model := u[strings.Index(u, "/models/")+len("/models/") : strings.Index(u, ":stream")]
	req := Request{Model: model, Messages: []Message{{Role: RoleUser, Text: body.Contents[0].Parts[0].Text}}}
	if len(body.SystemInstruction.Parts) > 0 {
		req.System = body.SystemInstruction.Parts[0].Text
	}
	for _, tl := range body.Tools {
		for _, d := range tl.FunctionDeclarations {
			req.Tools = append(req.Tools, Tool{Name: d.Name, Description: d.Description, Schema: d.Parameters})
		}
	}
	return req
}

// recordedModelParts is what each model turn of a recorded request sent back: per part, the
// function call's name, id and the thought signature.
func recordedModelParts(t *testing.T, body []byte) [][3]string {
	t.Helper()
	var req struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				FunctionCall *struct {
					ID   string `json:"id"`
					Name string `json:"name"`
				} `json:"functionCall"`
				Text             *string `json:"text"`
				ThoughtSignature string  `json:"thoughtSignature"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var out [][3]string
	for _, c := range req.Contents {
		if c.Role != "model" {
			continue
		}
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				out = append(out, [3]string{p.FunctionCall.Name, p.FunctionCall.ID, p.ThoughtSignature})
			} else if p.ThoughtSignature != "" {
				out = append(out, [3]string{"", "", p.ThoughtSignature})
			}
		}
	}
	return out
}

// TestGeminiRecordedStreams plays every stream recorded from the live Gemini API (gemini-2.5
// flash and pro, gemini-3 pro preview: text, a tool, parallel tools, thinking) through exo's
// provider, whole and cut into 3-byte pieces, and checks that each follow-up request sends the
// function calls back with the signatures the live API gave and the recording client sent.
func TestGeminiRecordedStreams(t *testing.T) {
	t.Parallel()
	cs, err := providertest.Cassettes(filepath.Join(geminiDir, "recorded"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) < 12 {
		t.Fatalf("%d cassettes", len(cs))
	}
	signatures := 0
	for _, c := range cs {
		t.Run(filepath.Base(c.Path), func(t *testing.T) {
			if c.Wire() != providertest.WireGemini {
				t.Fatalf("wire %q", c.Wire())
			}
			whole, reqs := geminiReplay(t, c, 0)
			cut, _ := geminiReplay(t, c, 3)
			for i, r := range whole {
				if !reflect.DeepEqual(stripTiming(r), stripTiming(cut[i])) {
					t.Errorf("interaction %d differs when cut into 3-byte pieces:\n%+v\n%+v", i, r, cut[i])
				}
				if r.Text == "" && len(r.ToolCalls) == 0 {
					t.Errorf("interaction %d: neither text nor calls", i)
				}
				if r.Usage.Input <= 0 || r.Usage.Output <= 0 || r.Usage.Reasoning > r.Usage.Output {
					t.Errorf("interaction %d: usage %+v", i, r.Usage)
				}
				for _, p := range r.Reasoning {
					if p.Type != "thought" && decodeSignature(p.Signature) == nil {
						t.Errorf("interaction %d: signature %q not kept as base64", i, p.Signature)
					}
				}
			}
			for i := 1; i < len(c.Interactions); i++ {
				rec := recordedModelParts(t, []byte(c.Interactions[i].Request.Body))
				got := recordedModelParts(t, reqs[i].Body)
				for j := range rec {
					if j >= len(got) {
						t.Fatalf("request %d: sent %d signed parts or calls, the recording %d", i, len(got), len(rec))
					}
					if rec[j][2] != got[j][2] || rec[j][0] != got[j][0] {
						t.Errorf("request %d part %d: sent %v, recorded %v", i, j, got[j], rec[j])
					}
					if rec[j][2] != "" {
						signatures++
					}
				}
			}
		})
	}
	if signatures == 0 {
		t.Error("no signature was sent back")
	}
}

// geminiReplay plays a cassette's answers through the provider, answering every call with
// "40 C", and returns the answers and the requests the server received.
func geminiReplay(t *testing.T, c *providertest.Cassette, chunk int) ([]Response, []providertest.Seen) {
	t.Helper()
	srv := providertest.NewReplyServer(c.Replies(chunk)...)
	defer srv.Close()
	p := NewGemini(Config{APIKey: "k", BaseURL: srv.URL})
	req := geminiRequest0(t, c)
	var out []Response
	for i := range c.Interactions {
		var text strings.Builder
		resp, err := p.Stream(context.Background(), req, func(d Delta) {
			if d.Kind == DeltaText {
				text.WriteString(d.Text)
			}
		})
		if err != nil {
			t.Fatalf("interaction %d: %v", i, err)
		}
		if text.String() != resp.Text {
			t.Errorf("interaction %d: deltas %q, text %q", i, text.String(), resp.Text)
		}
		out = append(out, resp)
		req.Messages = append(req.Messages, Message{Role: RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls, Reasoning: resp.Reasoning})
		for _, tc := range resp.ToolCalls {
			req.Messages = append(req.Messages, Message{Role: RoleTool, ToolCallID: tc.ID, Text: "40 C"})
		}
		if len(resp.ToolCalls) == 0 {
			req.Messages = append(req.Messages, Message{Role: RoleUser, Text: "Thanks."})
		}
	}
	reqs := srv.Requests()
	for _, r := range reqs {
		if r.Header.Get("X-Goog-Api-Key") != "k" || !strings.HasSuffix(r.Path, ":streamGenerateContent") {
			t.Fatalf("request %s with key %q", r.Path, r.Header.Get("X-Goog-Api-Key"))
		}
	}
	return out, reqs
}

// TestGeminiThinkingRecorded checks one live stream in detail: gemini-3 thinking with a call
// id and a signature on the call, an empty signed text part, usage with thoughts.
func TestGeminiThinkingRecorded(t *testing.T) {
	t.Parallel()
	c, err := providertest.LoadCassette(filepath.Join(geminiDir, "recorded", "TestGoogleThinking-gemini-3-pro-preview-thinking-streaming.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	resps, reqs := geminiReplay(t, c, 0)
	first := resps[0]
	if len(first.ToolCalls) != 1 || first.ToolCalls[0].ID != "9d532gc9" || first.ToolCalls[0].Name != "weather" ||
		string(first.ToolCalls[0].Arguments) != `{"location": "Florence, Italy"}` || first.StopReason != StopToolUse {
		t.Fatalf("first answer: %+v", first)
	}
	if first.Usage != (Usage{Input: 65, Output: 16 + 94, Reasoning: 94}) || first.Model != "gemini-3.1-pro-preview" {
		t.Fatalf("usage %+v model %q", first.Usage, first.Model)
	}
	if len(first.Reasoning) != 1 || first.Reasoning[0].Type != "function_call" || first.Reasoning[0].ID != "9d532gc9" ||
		!strings.HasPrefix(first.Reasoning[0].Signature, "Eu0DCuoDAb4+9vvd") || first.Reasoning[0].Origin != "127.0.0.1 gemini-3-pro-preview" {
		t.Fatalf("reasoning %+v", first.Reasoning)
	}
	if !strings.Contains(string(reqs[1].Body), `"functionResponse":{"id":"9d532gc9","name":"weather","response":{"result":"40 C"}}`) {
		t.Fatalf("tool result: %s", reqs[1].Body)
	}
	if !strings.Contains(string(reqs[0].Body), `"thinkingConfig":{"includeThoughts":true}`) {
		t.Fatalf("thinking config: %s", reqs[0].Body)
	}
	last := resps[len(resps)-1]
	if !strings.HasPrefix(last.Text, "The current weather in Florence") || len(last.Reasoning) != 1 || last.Reasoning[0].Type != "text" {
		t.Fatalf("answer: %+v", last)
	}
}

// TestGeminiReconstructedStreams checks the streams no public recording shows: a safety block
// mid-answer (a named failure keeping the text before it), usage only in the last chunk, a
// blocked prompt, a malformed call (retryable), MAX_TOKENS, an error inside the stream.
func TestGeminiReconstructedStreams(t *testing.T) {
	t.Parallel()
	run := func(t *testing.T, file string, chunk int) (Response, error) {
		srv := providertest.NewReplyServer(providertest.Reply{Body: geminiFile(t, file), Chunk: chunk})
		defer srv.Close()
		return NewGemini(Config{APIKey: "k", BaseURL: srv.URL}).Stream(context.Background(),
			Request{Model: "gemini-2.5-flash", Messages: []Message{{Role: RoleUser, Text: "hi"}}}, nil)
	}
	t.Run("safety", func(t *testing.T) {
		_, err := run(t, "safety-mid-answer.reconstructed.sse", 5)
		var pe *Error
		if !errors.As(err, &pe) || !errors.Is(err, ErrBlocked) || pe.Retryable() || pe.Type != "SAFETY" ||
			!strings.Contains(err.Error(), "HARM_CATEGORY_DANGEROUS_CONTENT") {
			t.Fatalf("%v", err)
		}
		p, ok := PartialOf(err)
		if !ok || p.Response.Text != "Here is how the mixture is usually prepared: first" || len(p.Response.Skipped) != 1 ||
			!strings.Contains(p.Response.Skipped[0].Content, `"blocked": true`) || p.Response.Usage.Output != 11 {
			t.Fatalf("partial %+v", p)
		}
	})
	t.Run("usage-last", func(t *testing.T) {
		r, err := run(t, "usage-last-chunk.reconstructed.sse", 0)
		if err != nil || r.Text != "Paris is the capital of France." || r.Usage != (Usage{Input: 12, Cached: 8, Output: 48, Reasoning: 41}) {
			t.Fatalf("%+v %v", r, err)
		}
		if len(r.Reasoning) != 2 || r.Reasoning[0].Type != "thought" || !strings.HasPrefix(r.Reasoning[0].Text, "**Weighing") ||
			r.Reasoning[1].Signature != "EtACCs0CAb4+9vvhUsageOnlyLastChunkSignatureA" {
			t.Fatalf("reasoning %+v", r.Reasoning)
		}
		cost, ok := Cost("gemini-3-pro-preview", r.Usage)
		if want := (4*2.00 + 8*0.20 + 48*12.00) / 1e6; !ok || cost != want {
			t.Fatalf("cost %v, want %v", cost, want)
		}
	})
	t.Run("prompt-blocked", func(t *testing.T) {
		_, err := run(t, "prompt-blocked.reconstructed.sse", 0)
		var pe *Error
		if !errors.As(err, &pe) || !errors.Is(err, ErrBlocked) || pe.Retryable() || !strings.Contains(err.Error(), "PROHIBITED_CONTENT") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("malformed-call", func(t *testing.T) {
		_, err := run(t, "malformed-call.reconstructed.sse", 0)
		var pe *Error
		if !errors.As(err, &pe) || pe.Type != "MALFORMED_FUNCTION_CALL" || !pe.Retryable() || !strings.Contains(err.Error(), "default_api.bash") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("max-tokens", func(t *testing.T) {
		r, err := run(t, "max-tokens.reconstructed.sse", 0)
		if err != nil || r.StopReason != StopMaxTokens || r.Text != "One, two, three, four," {
			t.Fatalf("%+v %v", r, err)
		}
	})
	t.Run("error-in-stream", func(t *testing.T) {
		var shown strings.Builder
		srv := providertest.NewReplyServer(providertest.Reply{Body: geminiFile(t, "error-in-stream.reconstructed.sse")})
		defer srv.Close()
		_, err := NewGemini(Config{APIKey: "k", BaseURL: srv.URL}).Stream(context.Background(),
			Request{Model: "gemini-2.5-pro", Messages: []Message{{Role: RoleUser, Text: "hi"}}}, func(d Delta) { shown.WriteString(d.Text) })
		var pe *Error
		if !errors.As(err, &pe) || !errors.Is(err, ErrOverloaded) || !pe.Retryable() || !strings.Contains(err.Error(), "overloaded") {
			t.Fatalf("%v", err)
		}
		if p, ok := PartialOf(err); !ok || p.Response.Text != "Let me look at the" || shown.String() != p.Response.Text {
			t.Fatalf("partial %+v %q", p, shown.String())
		}
	})
	t.Run("cut", func(t *testing.T) {
		body := geminiFile(t, "max-tokens.reconstructed.sse")
		body = strings.Replace(body, `"finishReason": "MAX_TOKENS",`, "", 1)
		srv := providertest.NewReplyServer(providertest.Reply{Body: body})
		defer srv.Close()
		_, err := NewGemini(Config{APIKey: "k", BaseURL: srv.URL}).Stream(context.Background(),
			Request{Model: "gemini-2.5-pro", Messages: []Message{{Role: RoleUser, Text: "hi"}}}, nil)
		if !errors.Is(err, ErrStreamCut) {
			t.Fatalf("%v", err)
		}
	})
	t.Run("malformed", func(t *testing.T) {
		srv := providertest.NewReplyServer(providertest.Reply{Body: geminiFile(t, filepath.Join("..", "gemini-malformed.sse"))})
		defer srv.Close()
		_, err := NewGemini(Config{APIKey: "k", BaseURL: srv.URL}).Stream(context.Background(),
			Request{Model: "gemini-2.5-pro", Messages: []Message{{Role: RoleUser, Text: "hi"}}}, nil)
		if !errors.Is(err, ErrMalformedStream) {
			t.Fatalf("%v", err)
		}
	})
}

// TestGeminiHTTPErrors checks 429 with RetryInfo, a quota 429 and 503, and that Reliable
// retries the retryable ones after the wait the API named.
func TestGeminiHTTPErrors(t *testing.T) {
	t.Parallel()
	call := func(rep providertest.Reply) error {
		srv := providertest.NewReplyServer(rep)
		defer srv.Close()
		_, err := NewGemini(Config{APIKey: "k", BaseURL: srv.URL}).Stream(context.Background(),
			Request{Model: "gemini-2.5-pro", Messages: []Message{{Role: RoleUser, Text: "hi"}}}, nil)
		return err
	}
	js := map[string]string{"Content-Type": "application/json"}
	err := call(providertest.Reply{Status: 429, Header: js, Body: geminiFile(t, "ratelimit-429.json")})
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != ErrRateLimited || pe.RetryAfter != 7*time.Second || pe.Type != "RESOURCE_EXHAUSTED" {
		t.Fatalf("429: %#v", err)
	}
	err = call(providertest.Reply{Status: 429, Header: map[string]string{"Content-Type": "application/json", "Retry-After": "3"}, Body: geminiFile(t, "ratelimit-429.json")})
	if !errors.As(err, &pe) || pe.RetryAfter != 3*time.Second {
		t.Fatalf("Retry-After: %v", err)
	}
	err = call(providertest.Reply{Status: 429, Header: js, Body: geminiFile(t, filepath.Join("..", "gemini-quota-429.json"))})
	if !errors.Is(err, ErrQuota) {
		t.Fatalf("quota: %v", err)
	}
	err = call(providertest.Reply{Status: 503, Header: js, Body: geminiFile(t, "overloaded-503.json")})
	if !errors.Is(err, ErrOverloaded) || !IsRetryable(err) {
		t.Fatalf("503: %v", err)
	}
	err = call(providertest.Reply{Status: 400, Header: js, Body: `{"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT"}}`})
	if !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "API key not valid") {
		t.Fatalf("400: %v", err)
	}
}

// TestGeminiRetriesAfterRetryInfo sends a 429 naming a 7s wait, then the answer, through
// Reliable: the retry waits exactly what RetryInfo said.
func TestGeminiRetriesAfterRetryInfo(t *testing.T) {
	t.Parallel()
	js := map[string]string{"Content-Type": "application/json"}
	srv := providertest.NewReplyServer(providertest.Reply{Status: 429, Header: js, Body: geminiFile(t, "ratelimit-429.json")},
		providertest.Reply{Body: geminiFile(t, "max-tokens.reconstructed.sse")})
	defer srv.Close()
	var waits []time.Duration
	p := NewReliable(NewGemini(Config{APIKey: "k", BaseURL: srv.URL}), RetryPolicy{Sleep: func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}}, nil)
	r, err := p.Stream(context.Background(), Request{Model: "gemini-2.5-pro", Messages: []Message{{Role: RoleUser, Text: "hi"}}}, nil)
	if err != nil || r.Text == "" || !reflect.DeepEqual(waits, []time.Duration{7 * time.Second}) {
		t.Fatalf("%+v %v waits %v", r, err, waits)
	}
}

// TestGeminiRequestShape checks the request body: system instruction, tools as JSON schema,
// tool results folded into one content, thought signatures only back to their origin, ids made
// up by exo left out.
func TestGeminiRequestShape(t *testing.T) {
	t.Parallel()
	req := Request{Model: "gemini-2.5-flash", System: "be brief", MaxOutputTokens: 100, ThinkingBudget: 512,
		Tools: []Tool{{Name: "bash", Description: "run", Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)}},
		Messages: []Message{
			{Role: RoleUser, Text: "go"},
			{Role: RoleAssistant, ToolCalls: []ToolCall{
				{ID: "exo-gemini-r1-0", Name: "bash", Arguments: json.RawMessage(`{"command":"ls","n":12345678901234567890}`)},
				{ID: "abc", Name: "bash", Arguments: json.RawMessage(`{"command":"pwd"}`)}},
				Reasoning: []Reasoning{
					{Format: ReasoningGemini, Type: "function_call", ID: "exo-gemini-r1-0", Signature: "AQID", Origin: "generativelanguage.googleapis.com gemini-2.5-flash"},
					{Format: ReasoningGemini, Type: "function_call", ID: "abc", Signature: "BAUG", Origin: "elsewhere gemini-2.5-flash"},
					{Format: ReasoningGemini, Type: "thought", Text: "unsigned"}}},
			{Role: RoleTool, ToolCallID: "exo-gemini-r1-0", Text: "a b"},
			{Role: RoleTool, ToolCallID: "abc", Text: "boom", IsError: true},
		}}
	b, err := json.Marshal(geminiParams(req, "generativelanguage.googleapis.com gemini-2.5-flash"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"contents":[{"parts":[{"text":"go"}],"role":"user"},` +
		`{"parts":[{"functionCall":{"args":{"command":"ls","n":12345678901234567890},"name":"bash"},"thoughtSignature":"AQID"},{"functionCall":{"id":"abc","args":{"command":"pwd"},"name":"bash"}}],"role":"model"},` +
		`{"parts":[{"functionResponse":{"name":"bash","response":{"result":"a b"}}},{"functionResponse":{"id":"abc","name":"bash","response":{"error":"boom"}}}],"role":"user"}],` +
		`"systemInstruction":{"parts":[{"text":"be brief"}],"role":"user"},` +
		`"tools":[{"functionDeclarations":[{"description":"run","name":"bash","parametersJsonSchema":{"type":"object","properties":{"command":{"type":"string"}}}}]}],` +
		`"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}},` +
		`"generationConfig":{"maxOutputTokens":100,"thinkingConfig":{"includeThoughts":true,"thinkingBudget":512}}}`
	if string(b) != want {
		t.Fatalf("body\n%s\nwant\n%s", b, want)
	}
	if geminiThinking(Request{Model: "gemini-2.0-flash"}) != nil {
		t.Fatal("a thinking config for a model without thinking")
	}
	if tc := geminiThinking(Request{Model: "gemini-3-pro-preview", ReasoningEffort: "low"}); tc == nil || tc.ThinkingLevel != "LOW" {
		t.Fatalf("%+v", tc)
	}
	for base, want := range map[string]string{"": DefaultGeminiURL + "/v1beta", "http://h:1/": "http://h:1/v1beta",
		"http://h:1/v1alpha": "http://h:1/v1alpha", "http://h/proxy": "http://h/proxy/v1beta"} {
		if got := geminiBase(base); got != want {
			t.Errorf("geminiBase(%q) = %q, want %q", base, got, want)
		}
	}
}

// TestGeminiListModels reads a models.list in two pages and keeps the generating models.
func TestGeminiListModels(t *testing.T) {
	t.Parallel()
	page1 := `{"models": [{"name": "models/gemini-2.5-flash","displayName": "Gemini 2.5 Flash","inputTokenLimit": 1048576,"outputTokenLimit": 65536,"supportedGenerationMethods": ["generateContent","countTokens","createCachedContent","batchGenerateContent"]},` +
		`{"name": "models/gemini-embedding-001","displayName": "Gemini Embedding 001","inputTokenLimit": 2048,"outputTokenLimit": 1,"supportedGenerationMethods": ["embedContent","countTextTokens","countTokens"]}],"nextPageToken": "p2"}`
	page2 := `{"models": [{"name": "models/gemini-2.5-pro","displayName": "Gemini 2.5 Pro","inputTokenLimit": 1048576,"outputTokenLimit": 65536,"supportedGenerationMethods": ["generateContent"]}]}`
	js := map[string]string{"Content-Type": "application/json"}
	srv := providertest.NewReplyServer(providertest.Reply{Header: js, Body: page1}, providertest.Reply{Header: js, Body: page2})
	defer srv.Close()
	got, err := ListModels(context.Background(), KindGemini, Config{APIKey: "k", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	want := []RemoteModel{{ID: "gemini-2.5-flash", Name: "Gemini 2.5 Flash", ContextWindow: 1048576, MaxOutput: 65536},
		{ID: "gemini-2.5-pro", Name: "Gemini 2.5 Pro", ContextWindow: 1048576, MaxOutput: 65536}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%+v", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Path != "/v1beta/models" || reqs[1].Header.Get("X-Goog-Api-Key") != "k" {
		t.Fatalf("%+v", reqs)
	}
}
