package provider

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestLookupToleratesSuffixes(t *testing.T) {
	for in, want := range map[string]string{
		"gpt-4.1": "gpt-4.1", "gpt-4.1-2025-04-14": "gpt-4.1", "gpt-4o-mini-2024-07-18": "gpt-4o-mini",
		"openai/gpt-5": "gpt-5", "claude-sonnet-4-5-20250929": "claude-sonnet-4-5",
		"claude-sonnet-4.5": "claude-sonnet-4-5", "claude-3-5-haiku-latest": "claude-3-5-haiku",
		"claude-opus-4-1-20250805": "claude-opus-4-1", "o4-mini": "o4-mini", "GPT-5-Mini": "gpt-5-mini",
	} {
		m, ok := Lookup(in)
		if !ok || m.ID != want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", in, m.ID, ok, want)
		}
	}
	if _, ok := Lookup("llama3.2:latest"); ok {
		t.Error("unknown model found")
	}
}

func TestCost(t *testing.T) {
	m, _ := Lookup("claude-sonnet-4-5")
	// 1M plain input $3 + 1M cache reads $0.30 + 1M cache writes $3.75 + 1M output $15.
	got := m.Cost(Usage{Input: 3_000_000, Cached: 1_000_000, CacheWrite: 1_000_000, Output: 1_000_000})
	if math.Abs(got-22.05) > 1e-9 {
		t.Errorf("cost = %v, want 22.05", got)
	}
	c, ok := Cost("gpt-4.1-2025-04-14", Usage{Input: 1412, Cached: 1280, Output: 38})
	want := (132*2.00 + 1280*0.50 + 38*8.00) / 1e6
	if !ok || math.Abs(c-want) > 1e-12 {
		t.Errorf("cost = %v, want %v", c, want)
	}
	if len(Models()) < 20 {
		t.Errorf("catalog has %d models", len(Models()))
	}
}

func TestCountTokens(t *testing.T) {
	n, exact := CountTokens("gpt-4o", "hello world")
	if !exact || n != 2 {
		t.Errorf("gpt-4o: %d, %v", n, exact)
	}
	n, exact = CountTokens("gpt-4-turbo", "hello world, how are you?")
	if !exact || n != 7 {
		t.Errorf("cl100k: %d, %v", n, exact)
	}
	n, exact = CountTokens("claude-sonnet-4-5", "12345678")
	if exact || n != 2 {
		t.Errorf("estimate: %d, %v", n, exact)
	}
	wantEq(t, "encoding", EncodingFor("o3-mini"), "o200k_base")
	wantEq(t, "encoding", EncodingFor("gpt-3.5-turbo"), "cl100k_base")
	wantEq(t, "encoding", EncodingFor("llama3"), "")
}

func TestListOllamaModels(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/tags" || r.Method != http.MethodGet {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"models":[{"name":"llama3.2:latest","model":"llama3.2:latest",
			"modified_at":"2026-10-01T10:00:00.000000000+02:00","size":2019393189,"digest":"a80c4f17acd5",
			"details":{"parent_model":"","format":"gguf","family":"llama","families":["llama"],
			"parameter_size":"3.2B","quantization_level":"Q4_K_M"}},
			{"name":"qwen2.5-coder:7b","model":"qwen2.5-coder:7b","modified_at":"2026-09-01T10:00:00Z",
			"size":4683087332,"details":{"family":"qwen2","parameter_size":"7.6B","quantization_level":"Q4_K_M"}}]}`))
	}))
	defer srv.Close()
	models, err := ListOllamaModels(context.Background(), srv.URL+"/v1/")
	if err != nil {
		t.Fatal(err)
	}
	if len(models) != 2 || models[0].Name != "llama3.2:latest" || models[0].ParameterSize != "3.2B" ||
		models[1].Family != "qwen2" || models[0].Size != 2019393189 {
		t.Errorf("models = %+v", models)
	}
	wantEq(t, "chat url", OllamaChatURL(srv.URL+"/"), srv.URL+"/v1")
	if _, err := ListOllamaModels(context.Background(), "http://127.0.0.1:1"); err == nil {
		t.Error("no error for a closed port")
	}
}

func TestArgsJSON(t *testing.T) {
	wantEq(t, "empty", string(argsJSON("  ")), "{}")
	wantEq(t, "valid", string(argsJSON(`{"a":1}`)), `{"a":1}`)
	wantEq(t, "invalid", string(argsJSON(`{"a":`)), `"{\"a\":"`)
}

func TestCountRequestTokens(t *testing.T) {
	req := testRequest("gpt-4.1")
	n, exact := CountRequestTokens(req)
	if !exact || n < 50 || n > 200 {
		t.Errorf("gpt-4.1: %d, %v", n, exact)
	}
	req.Model = "llama3"
	if m, exact := CountRequestTokens(req); exact || m < 50 {
		t.Errorf("estimate: %d, %v", m, exact)
	}
}
