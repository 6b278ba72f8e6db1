package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"exo/harness/provider/providertest"
)

// jsonError is an HTTP error answer with a JSON body, as the APIs send them.
func jsonError(status int, body string, header ...string) providertest.Reply {
	h := map[string]string{"Content-Type": "application/json"}
	for i := 0; i+1 < len(header); i += 2 {
		h[header[i]] = header[i+1]
	}
	return providertest.Reply{Status: status, Header: h, Body: body}
}

// TestHTTPErrorsThroughExo answers `exo run` with each kind of HTTP error the APIs send: the run
// fails at once (one request: none of these is retried) with exit 1, a message naming the
// provider, exo's kind and the provider's own type and message, and a model.failed event
// holding them. An error body that echoes the API key (as some proxies do) shows it redacted
// everywhere, and nowhere under EXO_HOME in the clear.
func TestHTTPErrorsThroughExo(t *testing.T) {
	t.Parallel()
	gemini, err := os.ReadFile(filepath.Join(providerData, "gemini-quota-429.json"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, kind, id string
		reply          providertest.Reply
		want           []string
	}{
		{"openai 401 echoing the key", "openai", "gpt-5", jsonError(401,
			`{"error":{"message":"Incorrect API key provided: test-key-1234567890. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`),
			[]string{"authentication failed (HTTP 401)", "invalid_api_key", "Incorrect API key provided: ‹secret:key›", "exo secret set"}},
		{"anthropic 401", "anthropic", "claude-sonnet-4-5", jsonError(401,
			`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_011CVJ2mWb7oQ3Hq6k4tG8Zx"}`),
			[]string{"anthropic: authentication failed (HTTP 401)", "authentication_error: invalid x-api-key"}},
		{"openrouter 402", "openai-compatible", "anthropic/claude-sonnet-4", jsonError(402,
			`{"error":{"message":"Insufficient credits. Add more using https://openrouter.ai/settings/credits","code":402}}`),
			[]string{"quota exhausted (HTTP 402)", "Insufficient credits", "check the plan and billing"}},
		{"anthropic 400 invalid request", "anthropic", "claude-sonnet-4-5", jsonError(400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 200000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5-20250929"},"request_id":"req_011CVJ3c1u9Z4r8mKp2sXy7Q"}`),
			[]string{"request rejected (HTTP 400)", "invalid_request_error: max_tokens: 200000 > 64000", "check the model id and options"}},
		{"gemini quota exceeded", "openai-compatible", "gemini-2.5-pro", jsonError(429, string(gemini)),
			[]string{"quota exhausted (HTTP 429)", "RESOURCE_EXHAUSTED", "You exceeded your current quota", "names a wait of 20s"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := providertest.NewReplyServer(c.reply)
			defer srv.Close()
			home, ws := t.TempDir(), t.TempDir()
			exoEnv(t, home, ws, []string{"KEY=test-key-1234567890"}, "secret", "set", "key", "--env", "KEY")
			if _, errs, code := exoEnv(t, home, ws, nil, "model", "register", "m", "--provider", c.kind, "--model-id", c.id,
				"--base-url", srv.URL, "--secret", "key"); code != 0 {
				t.Fatal(errs)
			}
			out, errs, code := exoEnv(t, home, ws, nil, "run", "--json", "hello")
			log, _, _ := exoEnv(t, home, ws, nil, "log", lastSession(t, home))
			if code != 1 || len(srv.Requests()) != 1 {
				t.Fatalf("exit %d after %d requests: %s %s", code, len(srv.Requests()), out, errs)
			}
			var res map[string]any
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			msg, _ := res["error"].(string)
			for i, w := range c.want {
				if !strings.Contains(msg, w) || i < 2 && !strings.Contains(log, w) { // the log's line is cut short
					t.Errorf("the run's error or log lacks %q: %s\n%s", w, msg, log)
				}
			}
			if !strings.Contains(log, "model.failed") || strings.Contains(log, "model.completed") {
				t.Errorf("log:\n%s", log)
			}
			for _, s := range []string{out, errs, log} {
				if strings.Contains(s, "test-key-1234567890") {
					t.Errorf("the key in the clear: %s", s)
				}
			}
			if f := fileHolding(t, home, []byte("test-key-1234567890")); f != "" {
				t.Errorf("the key in the clear in %s", f)
			}
		})
	}
}

// fileHolding returns the first file under dir whose bytes contain b, or "".
func fileHolding(t *testing.T, dir string, b []byte) string {
	t.Helper()
	found := ""
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || found != "" || info.Mode()&os.ModeType != 0 {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil && bytes.Contains(data, b) {
			found = p
		}
		return nil
	})
	return found
}

// TestRateLimitResetsThroughExo answers the first call with a 429 whose only wait is the
// reset of an exhausted limit in the headers (OpenAI's x-ratelimit-*, Anthropic's
// anthropic-ratelimit-* with an RFC 3339 time): exo waits at least that long, retries once,
// and the turn succeeds.
func TestRateLimitResetsThroughExo(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, kind, id, answer string
		limited                func() providertest.Reply
		atLeast                time.Duration
	}{
		{"x-ratelimit reset", "openai-compatible", "gpt-4.1", "chat-2-answer.sse", func() providertest.Reply {
			return jsonError(429, `{"error":{"message":"Rate limit reached for gpt-4.1 in organization org-x on requests per min (RPM): Limit 500, Used 500, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
				"x-ratelimit-limit-requests", "500", "x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "1.2s",
				"x-ratelimit-remaining-tokens", "29000", "x-ratelimit-reset-tokens", "2ms")
		}, time.Second},
		{"anthropic-ratelimit reset", "anthropic", "claude-sonnet-4-5", "anthropic-2-answer.sse", func() providertest.Reply {
			reset := time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339)
			return jsonError(429, `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50 requests per minute."},"request_id":"req_011CVJ4"}`,
				"anthropic-ratelimit-requests-limit", "50", "anthropic-ratelimit-requests-remaining", "0", "anthropic-ratelimit-requests-reset", reset)
		}, 500 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var at []time.Time
			limitFirst := func([]byte) *providertest.Reply { // the reset is set when the request comes
				mu.Lock()
				defer mu.Unlock()
				if at = append(at, time.Now()); len(at) == 1 {
					r := c.limited()
					return &r
				}
				return nil
			}
			srv := providertest.NewCheckedReplyServer(limitFirst, fileReplies(t, c.answer)...)
			defer srv.Close()
			res, log, bodies, code := runRecorded(t, srv, c.kind, c.id, "--thinking-budget", "off")
			if code != 0 || len(bodies) != 2 {
				t.Fatalf("exit %d after %d requests: %v\n%s", code, len(bodies), res, log)
			}
			mu.Lock()
			waited := at[1].Sub(at[0])
			mu.Unlock()
			if waited < c.atLeast {
				t.Errorf("retried after %v, before the limit's reset", waited)
			}
		})
	}
}
