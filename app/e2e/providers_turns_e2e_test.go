package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness/provider/providertest"
)

// runTurns registers model id of kind against srv and runs each prompt through the exo binary
// in one session (the second and later with --session): it returns each run's JSON summary
// and exit code, and the decoded request bodies the server saw.
func runTurns(t *testing.T, srv *providertest.ReplyServer, kind, id string, prompts []string, extra ...string) ([]map[string]any, []int, []map[string]any) {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("# sample\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "hello.py"), []byte("print('hello')\n"), 0o644)
	exoEnv(t, home, ws, []string{"KEY=test-key-1234567890"}, "secret", "set", "key", "--env", "KEY")
	args := append([]string{"model", "register", "m", "--provider", kind, "--model-id", id, "--base-url", srv.URL, "--secret", "key"}, extra...)
	if _, errs, code := exoEnv(t, home, ws, nil, args...); code != 0 {
		t.Fatal(errs)
	}
	var results []map[string]any
	var codes []int
	session := ""
	for _, p := range prompts {
		run := []string{"run", "--json", p}
		if session != "" {
			run = []string{"run", "--json", "--session", session, p}
		}
		out, errs, code := exoEnv(t, home, ws, nil, run...)
		var res map[string]any
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("exit %d: %s %s", code, out, errs)
		}
		if session == "" {
			session, _ = res["session"].(string)
		}
		results, codes = append(results, res), append(codes, code)
	}
	var bodies []map[string]any
	for _, r := range srv.Requests() {
		var b map[string]any
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatalf("request body: %v", err)
		}
		bodies = append(bodies, b)
	}
	return results, codes, bodies
}

// fileReplies reads fixtures under testdata/providers as replies.
func fileReplies(t *testing.T, names ...string) []providertest.Reply {
	t.Helper()
	var out []providertest.Reply
	for _, n := range names {
		r, err := providertest.FileReply(filepath.Join(providerData, n))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// assistants returns the assistant messages (chat and Anthropic) of a request body.
func assistants(body map[string]any) []map[string]any {
	var out []map[string]any
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		if mm, _ := m.(map[string]any); mm["role"] == "assistant" {
			out = append(out, mm)
		}
	}
	return out
}

// TestSecondTurnCarriesTheFirstTurnsReasoning runs a tool loop and then a second user turn in
// the same session through the exo binary, for each way reasoning goes back: the request of
// the second turn must carry the reasoning of every answer of the first, as that API wants
// it. The DeepSeek server checks requests as DeepSeek does and refuses one whose tool-calling
// answer lost its reasoning_content (the second turn failed so before).
func TestSecondTurnCarriesTheFirstTurnsReasoning(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, kind, id string
		srv            func(t *testing.T) *providertest.ReplyServer
		check          func(t *testing.T, turn2 map[string]any)
	}{
		{"deepseek reasoning_content", "openai-compatible", "deepseek-reasoner", func(t *testing.T) *providertest.ReplyServer {
			return providertest.NewCheckedReplyServer(providertest.DeepSeekReasoningRule,
				fileReplies(t, "deepseek-1-tool.reconstructed.sse", "deepseek-2-answer.reconstructed.sse")...)
		}, func(t *testing.T, turn2 map[string]any) {
			a := assistants(turn2)
			if len(a) < 2 || a[0]["reasoning_content"] != "The user wants to know what is in this project. I should list the workspace first." ||
				a[1]["reasoning_content"] != "The listing shows README.md and hello.py. That answers the question." {
				t.Errorf("the first turn's reasoning_content did not go back: %v", a)
			}
		}},
		{"vllm reasoning", "openai-compatible", "Qwen/Qwen3-8B", func(t *testing.T) *providertest.ReplyServer {
			return providertest.NewReplyServer(fileReplies(t, "vllm-1-tool.reconstructed.sse", "vllm-2-answer.reconstructed.sse")...)
		}, func(t *testing.T, turn2 map[string]any) {
			a := assistants(turn2)
			if len(a) < 2 {
				t.Fatalf("assistant messages: %v", a)
			}
			first, _ := a[0]["reasoning"].(string)
			second, _ := a[1]["reasoning"].(string)
			if !strings.HasPrefix(first, "Okay, the user wants to know") || a[0]["tool_calls"] == nil ||
				!strings.HasPrefix(second, "The listing has README.md") || a[0]["reasoning_content"] != nil {
				t.Errorf("vLLM's reasoning did not go back in its own field: %v", a)
			}
		}},
		{"anthropic thinking", "anthropic", "claude-sonnet-4", func(t *testing.T) *providertest.ReplyServer {
			return recorded(t, "TestAnthropicThinking/claude-sonnet-4/thinking-streaming.yaml")
		}, func(t *testing.T, turn2 map[string]any) {
			a := assistants(turn2)
			if len(a) < 2 {
				t.Fatalf("assistant messages: %v", a)
			}
			sig, _ := at(a[0], "content", 0, "signature").(string)
			if at(a[0], "content", 0, "type") != "thinking" || !strings.HasPrefix(sig, "EtYDCkYICxgCKkAVHEW") {
				t.Errorf("the first turn's thinking block did not go back unchanged: %v", a)
			}
		}},
		{"responses reasoning items", "openai", "gpt-5", func(t *testing.T) *providertest.ReplyServer {
			return recorded(t, "TestOpenAIResponsesWithSummaryThinking/openai-gpt-5/thinking-streaming.yaml")
		}, func(t *testing.T, turn2 map[string]any) {
			found := false
			for _, it := range turn2["input"].([]any) {
				enc, _ := at(it, "encrypted_content").(string)
				found = found || (at(it, "id") == "rs_017e85da2ae23b69016a3c1251dcec819daf72930a854fd4d1" && strings.HasPrefix(enc, "gAAAAABqPBJWAIvE"))
			}
			if !found {
				t.Errorf("the first turn's reasoning item did not go back: %v", turn2["input"])
			}
		}},
		{"gemini thought signature through vercel", "openai-compatible", "google/gemini-3-pro-preview", func(t *testing.T) *providertest.ReplyServer {
			return recorded(t, "TestVercelThinking/gemini-3-pro-preview/thinking-streaming.yaml")
		}, func(t *testing.T, turn2 map[string]any) {
			found := false
			details, _ := at(turn2, "messages", 2, "reasoning_details").([]any)
			for _, d := range details {
				data, _ := at(d, "data").(string)
				found = found || strings.HasPrefix(data, "ClkBjz1rXyu/iVRBYGB7kj4h")
			}
			if !found {
				t.Errorf("the thought signature did not go back in the second turn: %v", at(turn2, "messages", 2))
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := c.srv(t)
			defer srv.Close()
			res, codes, bodies := runTurns(t, srv, c.kind, c.id, []string{"What is in this project?", "And which file is the script?"})
			if codes[0] != 0 || codes[1] != 0 || len(bodies) != 3 {
				t.Fatalf("exits %v, %d requests: %v", codes, len(bodies), res)
			}
			c.check(t, bodies[2])
		})
	}
}

// TestRedactedThinkingRoundTripsThroughExo runs a tool loop whose answer starts with a
// redacted_thinking block (opaque data, no text) and a second turn through the exo binary,
// against a server that checks requests as Anthropic does with thinking on: the block goes
// back first and byte for byte in the loop's next request and in the next turn's, and thinking
// stays on (a request without it would be refused).
func TestRedactedThinkingRoundTripsThroughExo(t *testing.T) {
	t.Parallel()
	replies := fileReplies(t, "anthropic-redacted-thinking-1-tool.reconstructed.sse", "anthropic-2-answer.sse")
	srv := providertest.NewCheckedReplyServer(providertest.AnthropicThinkingRule, replies...)
	defer srv.Close()
	res, codes, bodies := runTurns(t, srv, "anthropic", "claude-sonnet-4-5", []string{"Run hello.py", "And again?"})
	if codes[0] != 0 || codes[1] != 0 || len(bodies) != 3 {
		t.Fatalf("exits %v, %d requests: %v", codes, len(bodies), res)
	}
	start := strings.Index(replies[0].Body, `"data":"`) + len(`"data":"`)
	data := replies[0].Body[start : start+strings.Index(replies[0].Body[start:], `"`)]
	for i, b := range bodies {
		if at(b, "thinking", "type") != "enabled" {
			t.Errorf("request %d without thinking: %v", i+1, b["thinking"])
		}
	}
	for _, i := range []int{1, 2} {
		block, _ := at(bodies[i], "messages", 1, "content", 0).(map[string]any)
		if len(block) != 2 || block["type"] != "redacted_thinking" || block["data"] != data || at(bodies[i], "messages", 1, "content", 1, "type") != "tool_use" {
			t.Errorf("request %d: the redacted block did not go back first and unchanged: %v", i+1, at(bodies[i], "messages", 1))
		}
	}
}
