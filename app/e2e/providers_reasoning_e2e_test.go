package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness/provider/providertest"
)

// recorded starts a local server playing a cassette recorded from a live service.
func recorded(t *testing.T, rel string) *providertest.ReplyServer {
	t.Helper()
	c, err := providertest.LoadCassette(filepath.Join(providerData, "recorded", rel))
	if err != nil {
		t.Fatal(err)
	}
	srv := providertest.NewReplyServer(c.Replies(0)...)
	t.Cleanup(srv.Close)
	return srv
}

// runRecorded registers model id of kind against srv, runs one prompt through the exo binary
// and returns the run's JSON summary, the session's log and the decoded request bodies.
func runRecorded(t *testing.T, srv *providertest.ReplyServer, kind, id string, extra ...string) (map[string]any, string, []map[string]any, int) {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("# sample\n"), 0o644)
	exoEnv(t, home, ws, []string{"KEY=test-key-1234567890"}, "secret", "set", "key", "--env", "KEY")
	args := append([]string{"model", "register", "m", "--provider", kind, "--model-id", id, "--base-url", srv.URL, "--secret", "key"}, extra...)
	if _, errs, code := exoEnv(t, home, ws, nil, args...); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code := exoEnv(t, home, ws, nil, "run", "--json", "What's the weather in Florence, Italy?")
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	log, _, _ := exoEnv(t, home, ws, nil, "log", lastSession(t, home))
	var bodies []map[string]any
	for _, r := range srv.Requests() {
		var b map[string]any
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatalf("request body: %v", err)
		}
		bodies = append(bodies, b)
	}
	return res, log, bodies, code
}

// at walks a decoded JSON value by keys and indices.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// TestReasoningRoundTripsThroughExo runs the exo binary against recorded thinking streams of
// each API: the step's reasoning is recorded (exo log shows it) and the next request carries
// it back exactly as that API requires.
func TestReasoningRoundTripsThroughExo(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, cassette, kind, id string
		check                    func(t *testing.T, first, second map[string]any)
	}{
		{"anthropic thinking", "TestAnthropicThinking/claude-sonnet-4/thinking-streaming.yaml", "anthropic", "claude-sonnet-4",
			func(t *testing.T, first, second map[string]any) {
				if at(first, "thinking", "type") != "enabled" || at(first, "thinking", "budget_tokens") != 4096.0 {
					t.Errorf("thinking not asked for: %v", first["thinking"])
				}
				if at(second, "messages", 1, "content", 0, "type") != "thinking" ||
					!strings.HasPrefix(at(second, "messages", 1, "content", 0, "signature").(string), "EtYDCkYICxgCKkAVHEW") ||
					at(second, "messages", 1, "content", 1, "type") != "tool_use" {
					t.Errorf("the thinking block did not go back before tool_use: %v", at(second, "messages", 1))
				}
			}},
		{"responses reasoning items", "TestOpenAIResponsesWithSummaryThinking/openai-gpt-5/thinking-streaming.yaml", "openai", "gpt-5",
			func(t *testing.T, first, second map[string]any) {
				if at(first, "include", 0) != "reasoning.encrypted_content" || at(first, "store") != false || at(first, "reasoning", "effort") != "medium" {
					t.Errorf("first request: include %v store %v reasoning %v", first["include"], first["store"], first["reasoning"])
				}
				item := at(second, "input", 1)
				if at(item, "type") != "reasoning" || at(item, "id") != "rs_017e85da2ae23b69016a3c1251dcec819daf72930a854fd4d1" ||
					!strings.HasPrefix(at(item, "encrypted_content").(string), "gAAAAABqPBJWAIvE") {
					t.Errorf("the reasoning item did not go back: %v", item)
				}
			}},
		{"deepseek-style reasoning_content", "TestOpenAICompatibleThinking/zai-glm-4-7-flash/thinking-streaming.yaml", "openai-compatible", "glm-4.7-flash",
			func(t *testing.T, _, second map[string]any) {
				if rc, _ := at(second, "messages", 2, "reasoning_content").(string); !strings.HasPrefix(rc, "The user is asking about the weather") {
					t.Errorf("reasoning_content not on the tool-call turn: %v", at(second, "messages", 2))
				}
			}},
		{"openrouter reasoning_details", "TestOpenRouterThinking/anthropic/thinking-streaming.yaml", "openai-compatible", "anthropic/claude-haiku-4.5",
			func(t *testing.T, _, second map[string]any) {
				if sig, _ := at(second, "messages", 2, "reasoning_details", 0, "signature").(string); !strings.HasPrefix(sig, "Eq0ECkgIDRABGAIqQM") {
					t.Errorf("reasoning_details not sent back: %v", at(second, "messages", 2))
				}
			}},
		{"gemini thought signature through vercel", "TestVercelThinking/gemini-3-pro-preview/thinking-streaming.yaml", "openai-compatible", "google/gemini-3-pro-preview",
			func(t *testing.T, _, second map[string]any) {
				found := false
				for _, d := range at(second, "messages", 2, "reasoning_details").([]any) {
					data, _ := at(d, "data").(string)
					found = found || strings.HasPrefix(data, "ClkBjz1rXyu/iVRBYGB7kj4h")
				}
				if !found {
					t.Errorf("thought signature not sent back: %v", at(second, "messages", 2))
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := recorded(t, c.cassette)
			res, log, bodies, code := runRecorded(t, srv, c.kind, c.id)
			if code != 0 || len(bodies) != 2 {
				t.Fatalf("exit %d, %d requests: %v", code, len(bodies), res)
			}
			c.check(t, bodies[0], bodies[1])
			if !strings.Contains(log, "thought: ") {
				t.Errorf("exo log does not show the reasoning:\n%s", log)
			}
		})
	}
}

// TestProviderCostAndReasoningTokensReachTheRun checks the run's cost is the provider's own
// figure (OpenRouter's usage.cost) and xAI's reasoning tokens, reported outside
// completion_tokens, are counted as output.
func TestProviderCostAndReasoningTokensReachTheRun(t *testing.T) {
	t.Parallel()
	res, _, _, code := runRecorded(t, recorded(t, "TestOpenRouterThinking/anthropic/thinking-streaming.yaml"), "openai-compatible", "anthropic/claude-haiku-4.5")
	if cost, _ := res["cost"].(float64); code != 0 || cost < 0.001322 || cost > 0.0014+0.001322 {
		t.Errorf("cost = %v (exit %d), want OpenRouter's figures summed", res["cost"], code)
	}
	res, log, _, _ := runRecorded(t, recorded(t, "TestOpenAICompatibleThinking/xai-grok-3-mini/thinking-streaming.yaml"), "openai-compatible", "grok-3-mini")
	if out, r := at(res, "usage", "output"), at(res, "usage", "reasoning"); out == nil || out.(float64) < 340 || r == nil || r.(float64) < 313 {
		t.Errorf("output tokens %v, reasoning %v: xAI's 313 reasoning tokens are missing (%v)", out, r, res["usage"])
	}
	if !strings.Contains(log, "thought: First, the user is asking") {
		t.Errorf("log:\n%s", log)
	}
}

// TestModelErrorsThroughExo checks an exhausted quota reported inside a 200 stream fails the
// run at once (not retried) with the provider's type and message, and a chat stream ending in
// finish_reason "error" is a failure, not an answer: what it had streamed is kept only as an
// answer cut by the provider's error.
func TestModelErrorsThroughExo(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, fixture, kind, want string }{
		{"quota", "openai-responses-quota.sse", "openai", "insufficient_quota"},
		{"finish_reason error", "chat-finish-error.sse", "openai-compatible", `finish_reason "error"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, err := providertest.FileReply(filepath.Join(providerData, c.fixture))
			if err != nil {
				t.Fatal(err)
			}
			srv := providertest.NewReplyServer(rep)
			defer srv.Close()
			res, log, bodies, code := runRecorded(t, srv, c.kind, "gpt-5")
			if code != 1 || len(bodies) != 1 {
				t.Fatalf("exit %d after %d requests: %v", code, len(bodies), res)
			}
			completed := strings.Count(log, "model.completed")
			if !strings.Contains(log, "model.failed") || !strings.Contains(log, c.want) || completed != strings.Count(log, "[cut: provider error") {
				t.Errorf("log:\n%s", log)
			}
		})
	}
}

// TestServerToolBlocksDoNotBreakATurn replays Anthropic's web search stream (a server_tool_use
// block with input_json_delta, then search results, then citations): the turn completes with
// the answer, and exo log names what was passed over.
func TestServerToolBlocksDoNotBreakATurn(t *testing.T) {
	t.Parallel()
	res, log, _, code := runRecorded(t, recorded(t, "TestAnthropicWebSearch/stream.yaml"), "anthropic", "claude-sonnet-4", "--thinking-budget", "off")
	if code != 0 || !strings.Contains(res["response"].(string), "Tokyo") {
		t.Fatalf("exit %d: %v", code, res)
	}
	if !strings.Contains(log, "model.completed") || !strings.Contains(log, "skipped server_tool_use skipped web_search_tool_result skipped citations_delta×7") {
		t.Errorf("log:\n%s", log)
	}
}

// TestGPT5ThroughCompatibleGetsMaxCompletionTokens checks the request gpt-5 gets through an
// OpenAI-compatible endpoint.
func TestGPT5ThroughCompatibleGetsMaxCompletionTokens(t *testing.T) {
	t.Parallel()
	_, _, bodies, code := runRecorded(t, recorded(t, "TestAzureCommon/azure-gpt-5-mini/simple_streaming.yaml"), "openai-compatible", "gpt-5-mini")
	if code != 0 || at(bodies[0], "max_tokens") != nil || at(bodies[0], "max_completion_tokens") != 128000.0 {
		t.Errorf("exit %d, body: max_tokens %v max_completion_tokens %v", code, at(bodies[0], "max_tokens"), at(bodies[0], "max_completion_tokens"))
	}
}

// TestRetryHintInTheMessageThroughExo answers the first call with a 429 whose only wait is in
// its text, as Groq sends it: exo waits and retries once, and the turn succeeds.
func TestRetryHintInTheMessageThroughExo(t *testing.T) {
	t.Parallel()
	answer, err := providertest.FileReply(filepath.Join(providerData, "chat-2-answer.sse"))
	if err != nil {
		t.Fatal(err)
	}
	srv := providertest.NewReplyServer(providertest.Reply{Status: 429, Header: map[string]string{"Content-Type": "application/json"},
		Body: "{\"error\":{\"message\":\"Rate limit reached for model `llama-3.3-70b-versatile` on tokens per minute (TPM): Limit 12000, Used 11449, Requested 1362. Please try again in 0.3s.\",\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}"},
		answer)
	defer srv.Close()
	res, log, bodies, code := runRecorded(t, srv, "openai-compatible", "llama-3.3-70b-versatile")
	if code != 0 || len(bodies) != 2 || !strings.Contains(res["response"].(string), "hello.py") {
		t.Fatalf("exit %d after %d requests: %v\n%s", code, len(bodies), res, log)
	}
}

// TestCacheWritesArePricedThroughExo runs the recorded-shape Anthropic exchange whose second
// answer writes 310 tokens to the cache: the run's cost prices them at 1.25× input.
func TestCacheWritesArePricedThroughExo(t *testing.T) {
	t.Parallel()
	var reps []providertest.Reply
	for _, f := range []string{"anthropic-1-tool.sse", "anthropic-2-answer.sse"} {
		r, err := providertest.FileReply(filepath.Join(providerData, f))
		if err != nil {
			t.Fatal(err)
		}
		reps = append(reps, r)
	}
	srv := providertest.NewReplyServer(reps...)
	defer srv.Close()
	res, _, _, code := runRecorded(t, srv, "anthropic", "claude-sonnet-4-5", "--thinking-budget", "off")
	// Step 1: 214 plain + 1,830 cache reads in, 71 out; step 2: 48 plain + 1,830 reads + 310
	// writes in, 15 out; Sonnet 4.5: $3 in, $0.30 reads, $3.75 writes, $15 out per Mtok.
	want := (214*3 + 1830*0.30 + 71*15 + 48*3 + 1830*0.30 + 310*3.75 + 15*15) / 1e6
	cost, _ := res["cost"].(float64)
	if code != 0 || cost < want-1e-9 || cost > want+1e-9 || at(res, "usage", "cache_write") != 310.0 {
		t.Fatalf("exit %d: cost %v, want %v; usage %v", code, cost, want, res["usage"])
	}
}
