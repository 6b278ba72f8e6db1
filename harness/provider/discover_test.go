package provider

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// modelsServer serves a models listing from testdata/providers/models at path and records the
// request headers.
func modelsServer(t *testing.T, path, file string) (*httptest.Server, *http.Header) {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("..", "..", "testdata", "providers", "models", file))
	if err != nil {
		t.Fatal(err)
	}
	seen := &http.Header{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		*seen = r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, seen
}

func TestListModelsOfEachEndpoint(t *testing.T) {
	ctx := context.Background()
	srv, h := modelsServer(t, "/v1/models", "openai.json")
	ms, err := ListModels(ctx, KindOpenAI, Config{APIKey: "sk-x", BaseURL: srv.URL + "/v1"})
	if err != nil || len(ms) != 4 || ms[1].ID != "gpt-4.1-2025-04-14" || h.Get("Authorization") != "Bearer sk-x" {
		t.Fatalf("openai: %v %+v %v", err, ms, h)
	}
	srv, h = modelsServer(t, "/v1/models", "anthropic.json")
	ms, err = ListModels(ctx, KindAnthropic, Config{APIKey: "sk-ant", BaseURL: srv.URL})
	if err != nil || len(ms) != 3 || ms[1].Name != "Claude Opus 4.1" || h.Get("X-Api-Key") != "sk-ant" || h.Get("Anthropic-Version") == "" {
		t.Fatalf("anthropic: %v %+v %v", err, ms, h)
	}
	srv, _ = modelsServer(t, "/api/v1/models", "openrouter.json")
	ms, err = ListModels(ctx, KindOpenAICompatible, Config{APIKey: "k", BaseURL: srv.URL + "/api/v1"})
	if err != nil || len(ms) != 2 {
		t.Fatalf("openrouter: %v %+v", err, ms)
	}
	h45 := ms[0]
	if h45.ContextWindow != 200_000 || h45.MaxOutput != 64_000 || !close6(h45.PriceIn, 1) || !close6(h45.PriceOut, 5) ||
		!close6(h45.PriceCachedIn, 0.1) || !close6(h45.PriceCacheWrite, 1.25) {
		t.Errorf("openrouter entry: %+v", h45)
	}
	srv, _ = modelsServer(t, "/v1/models", "vllm.json")
	if ms, err = ListModels(ctx, KindOpenAICompatible, Config{BaseURL: srv.URL}); err != nil || ms[0].ContextWindow != 65_536 {
		t.Errorf("vllm: %v %+v", err, ms)
	}
	srv, _ = modelsServer(t, "/v1/models", "llamacpp.json")
	if ms, err = ListModels(ctx, KindOpenAICompatible, Config{BaseURL: srv.URL + "/v1"}); err != nil || ms[0].ID != "gpt-oss-20b" || ms[0].ContextWindow != 131_072 {
		t.Errorf("llama.cpp: %v %+v", err, ms)
	}
	srv, _ = modelsServer(t, "/api/tags", "ollama-tags.json")
	if ms, err = ListModels(ctx, KindOpenAICompatible, Config{BaseURL: srv.URL + "/v1"}); err != nil || len(ms) != 2 ||
		ms[0].ID != "qwen2.5-coder:7b" || ms[0].Name != "qwen2 7.6B Q4_K_M" || ms[0].Size == 0 {
		t.Errorf("ollama tags: %v %+v", err, ms)
	}
}

func TestListModelsErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`))
	}))
	defer srv.Close()
	_, err := ListModels(context.Background(), KindAnthropic, Config{APIKey: "bad", BaseURL: srv.URL})
	var pe *Error
	if !errors.As(err, &pe) || !errors.Is(err, ErrAuth) || pe.Type != "authentication_error" || pe.Detail != "invalid x-api-key" {
		t.Fatalf("err = %v", err)
	}
	if _, err := ListModels(context.Background(), KindOpenAICompatible, Config{}); err == nil {
		t.Error("no base URL: no error")
	}
}

// close6 compares prices to a millionth of a dollar.
func close6(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
