package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// seenKeys collects the credentials the endpoints were sent.
type seenKeys struct {
	mu   sync.Mutex
	keys []string
}

// all returns the credentials seen so far, joined.
func (s *seenKeys) all() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.keys, " ")
}

// modelsEndpoint serves a recorded-shape models listing at path and records the keys it saw.
func modelsEndpoint(t *testing.T, path, file string, keys *seenKeys) *httptest.Server {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(providerData, "models", file))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		keys.mu.Lock()
		keys.keys = append(keys.keys, r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"))
		keys.mu.Unlock()
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestModelLsRemote lists what the registered models' endpoints serve through the exo binary:
// each endpoint gets its own sealed key, known ids are marked, registered ones named, a dead
// endpoint is reported without hiding the others, and --provider and --base-url narrow it.
func TestModelLsRemote(t *testing.T) {
	t.Parallel()
	keys := &seenKeys{}
	router := modelsEndpoint(t, "/api/v1/models", "openrouter.json", keys)
	claude := modelsEndpoint(t, "/v1/models", "anthropic.json", keys)
	vllm := modelsEndpoint(t, "/v1/models", "vllm.json", keys)
	home, ws := t.TempDir(), t.TempDir()
	env := []string{"OR_KEY=sk-or-test-0123456789", "ANT_KEY=sk-ant-test-0123456789"}
	exoEnv(t, home, ws, env, "secret", "set", "or", "--env", "OR_KEY")
	exoEnv(t, home, ws, env, "secret", "set", "ant", "--env", "ANT_KEY")
	out, errs, code := exoEnv(t, home, ws, nil, "model", "register", "haiku", "--provider", "openai-compatible",
		"--model-id", "anthropic/claude-haiku-4.5", "--base-url", router.URL+"/api/v1", "--secret", "or")
	if code != 0 || !strings.Contains(out, "$1.00/$5.00 per Mtok") {
		t.Fatalf("a known id did not get its prices: %s %s", out, errs)
	}
	exoEnv(t, home, ws, nil, "model", "register", "sonnet", "--provider", "anthropic", "--model-id", "claude-sonnet-4-5-20250929",
		"--base-url", claude.URL, "--secret", "ant")
	exoEnv(t, home, ws, nil, "model", "register", "dead", "--provider", "openai-compatible", "--model-id", "x", "--base-url", "http://127.0.0.1:1/v1")

	out, errs, code = exoEnv(t, home, ws, nil, "model", "ls", "--remote")
	if code != 0 || !strings.Contains(errs, "127.0.0.1:1") {
		t.Fatalf("exit %d: %s\n%s", code, out, errs)
	}
	for _, want := range []string{"anthropic/claude-haiku-4.5", "deepseek/deepseek-v3.2", "claude-sonnet-4-5-20250929", "haiku", "sonnet"} {
		if !strings.Contains(out, want) {
			t.Errorf("listing lacks %q:\n%s", want, out)
		}
	}
	line := lineWith(out, "claude-opus-4-1-20250805")
	if !strings.Contains(line, "yes") || !strings.Contains(line, "15.00") || !strings.Contains(line, "75.00") {
		t.Errorf("a known Anthropic id is not marked with its prices: %q", line)
	}
	if seen := keys.all(); !strings.Contains(seen, "Bearer sk-or-test-0123456789") || !strings.Contains(seen, "sk-ant-test-0123456789") {
		t.Errorf("keys seen: %v", seen)
	}
	if strings.Contains(out+errs, "sk-or-test") || strings.Contains(out+errs, "sk-ant-test") {
		t.Error("a key reached the output")
	}

	out, _, _ = exoEnv(t, home, ws, nil, "model", "ls", "--remote", "--provider", "anthropic", "--json")
	var ms []map[string]any
	if err := json.Unmarshal([]byte(out), &ms); err != nil || len(ms) != 3 || ms[0]["provider"] != "anthropic" {
		t.Fatalf("--provider anthropic: %v %s", err, out)
	}
	out, _, code = exoEnv(t, home, ws, nil, "model", "ls", "--remote", "--base-url", vllm.URL)
	if code != 0 || !strings.Contains(lineWith(out, "Qwen/Qwen3-Coder-30B-A3B-Instruct"), "65536") {
		t.Errorf("--base-url: %s", out)
	}
}

// lineWith returns the first line of out containing s.
func lineWith(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
