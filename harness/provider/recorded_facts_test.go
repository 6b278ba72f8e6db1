package provider

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness/provider/providertest"
)

// cassette loads one recorded cassette by its path under recordedDir.
func cassette(t *testing.T, rel string) *providertest.Cassette {
	t.Helper()
	c, err := providertest.LoadCassette(filepath.Join(recordedDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// body decodes exo's n-th request.
func body(t *testing.T, r replayed, n int) map[string]any {
	t.Helper()
	var b map[string]any
	if err := json.Unmarshal(r.reqs[n].Body, &b); err != nil {
		t.Fatal(err)
	}
	return b
}

// near reports whether two prices agree to a millionth of a cent.
func near(a, b float64) bool { return math.Abs(a-b) < 1e-8 }

func TestRecordedAnthropicThinkingRoundTrip(t *testing.T) {
	r := replay(t, cassette(t, "TestAnthropicThinking/claude-sonnet-4/thinking-streaming.yaml"), 0,
		func(req *Request) { req.ThinkingBudget = 4000 })
	th := r.resps[0].Reasoning
	if len(th) != 1 || th[0].Format != ReasoningAnthropic || th[0].Type != "thinking" ||
		!strings.HasPrefix(th[0].Signature, "EtYDCkYICxgCKkAVHEWRYo6") || !strings.HasPrefix(th[0].Text, "The user is asking for weather") {
		t.Fatalf("reasoning = %+v", th)
	}
	b0, b1 := body(t, r, 0), body(t, r, 1)
	wantAt(t, b0, "enabled", "thinking", "type")
	wantAt(t, b0, 4000.0, "thinking", "budget_tokens")
	wantAt(t, b1, "thinking", "messages", 1, "content", 0, "type")
	wantAt(t, b1, th[0].Signature, "messages", 1, "content", 0, "signature")
	wantAt(t, b1, th[0].Text, "messages", 1, "content", 0, "thinking")
	wantAt(t, b1, "tool_use", "messages", 1, "content", 1, "type")
}

func TestRecordedResponsesReasoningRoundTrip(t *testing.T) {
	c := cassette(t, "TestOpenAIResponsesWithSummaryThinking/openai-gpt-5/thinking-streaming.yaml")
	r := replay(t, c, 0)
	rs := r.resps[0].Reasoning
	if len(rs) != 1 || rs[0].ID != "rs_017e85da2ae23b69016a3c1251dcec819daf72930a854fd4d1" ||
		!strings.HasPrefix(rs[0].Summary[0], "**Getting weather info**") {
		t.Fatalf("reasoning = %+v", rs)
	}
	// The encrypted content is the one of response.output_item.done, not the
	// incomplete one of output_item.added.
	if !strings.HasPrefix(rs[0].Data, "gAAAAABqPBJWAIvEAmUTQCqLSmR9") {
		t.Errorf("encrypted content = %.40s", rs[0].Data)
	}
	wantEq(t, "reasoning tokens", r.resps[0].Usage.Reasoning > 0, true)
	b0, b1 := body(t, r, 0), body(t, r, 1)
	wantAt(t, b0, "reasoning.encrypted_content", "include", 0)
	wantAt(t, b0, false, "store")
	wantAt(t, b0, "auto", "reasoning", "summary")
	wantAt(t, b1, "reasoning", "input", 1, "type")
	wantAt(t, b1, rs[0].ID, "input", 1, "id")
	wantAt(t, b1, rs[0].Data, "input", 1, "encrypted_content")
	wantAt(t, b1, rs[0].Summary[0], "input", 1, "summary", 0, "text")
	wantAt(t, b1, "function_call", "input", 2, "type")
}

func TestRecordedOpenRouterReasoningDetailsAndCost(t *testing.T) {
	r := replay(t, cassette(t, "TestOpenRouterThinking/anthropic/thinking-streaming.yaml"), 0)
	u := r.resps[0].Usage
	if !near(u.Cost, 0.001322) || u.Reasoning != 99 || u.Input != 607 || u.Output != 143 {
		t.Errorf("usage = %+v", u)
	}
	d := r.resps[0].Reasoning
	if len(d) != 1 || d[0].Format != ReasoningDetails || d[0].Type != "reasoning.text" || d[0].DetailFormat != "anthropic-claude-v1" ||
		!strings.HasPrefix(d[0].Signature, "Eq0ECkgIDRABGAIqQM") || !strings.HasPrefix(d[0].Text, "The user is asking for weather information in Florence") {
		t.Fatalf("reasoning = %+v", d)
	}
	b1 := body(t, r, 1)
	wantAt(t, b1, d[0].Signature, "messages", 2, "reasoning_details", 0, "signature")
	wantAt(t, b1, d[0].Text, "messages", 2, "reasoning_details", 0, "text")
	wantAt(t, b1, "anthropic-claude-v1", "messages", 2, "reasoning_details", 0, "format")
}

func TestRecordedGeminiThoughtSignatureThroughVercel(t *testing.T) {
	r := replay(t, cassette(t, "TestVercelThinking/gemini-3-pro-preview/thinking-streaming.yaml"), 0)
	var enc Reasoning
	for _, p := range r.resps[0].Reasoning {
		if p.Type == "reasoning.encrypted" {
			enc = p
		}
	}
	if !strings.HasPrefix(enc.Data, "ClkBjz1rXyu/iVRBYGB7kj4h") || enc.DetailFormat != "google-gemini-v1" {
		t.Fatalf("thought signature = %+v", r.resps[0].Reasoning)
	}
	sent := body(t, r, 1)
	found := false
	for _, d := range dig(sent, "messages", 2, "reasoning_details").([]any) {
		found = found || d.(map[string]any)["data"] == enc.Data
	}
	if !found {
		t.Errorf("the thought signature was not sent back: %v", dig(sent, "messages", 2))
	}
	// Vercel counts Gemini's thoughts outside completion_tokens: 9 + 61.
	wantEq(t, "output", r.resps[0].Usage.Output, int64(70))
}

func TestRecordedXAIReasoningOutsideCompletionTokens(t *testing.T) {
	r := replay(t, cassette(t, "TestOpenAICompatibleThinking/xai-grok-3-mini/thinking-streaming.yaml"), 0)
	u := r.resps[0].Usage
	// completion_tokens 27 + reasoning_tokens 313 = total 628 − prompt 288.
	if u.Output != 340 || u.Reasoning != 313 || u.Cached != 287 || !near(u.Cost, 0.000191825) {
		t.Errorf("usage = %+v", u)
	}
	wantAt(t, body(t, r, 1), r.resps[0].Reasoning[0].Text, "messages", 2, "reasoning_content")
}

func TestRecordedDeepSeekStyleReasoningContent(t *testing.T) {
	r := replay(t, cassette(t, "TestOpenAICompatibleThinking/zai-glm-4-7-flash/thinking-streaming.yaml"), 0)
	p := r.resps[0].Reasoning
	if len(p) != 1 || p[0].Format != ReasoningContent || !strings.HasPrefix(p[0].Text, "The user is asking about the weather") {
		t.Fatalf("reasoning = %+v", p)
	}
	wantAt(t, body(t, r, 1), p[0].Text, "messages", 2, "reasoning_content")
	wantEq(t, "usage", r.resps[0].Usage, Usage{Input: 173, Output: 87, Cached: 172, Reasoning: 63})
}

func TestRecordedServerToolBlocksAreSkipped(t *testing.T) {
	r := replay(t, cassette(t, "TestAnthropicWebSearch/stream.yaml"), 3)
	resp := r.resps[0]
	var types []string
	for _, sk := range resp.Skipped {
		types = append(types, sk.Type)
	}
	wantEq(t, "skipped", types, []string{"server_tool_use", "web_search_tool_result", "citations_delta"})
	if sk := resp.Skipped[0]; sk.Count != 1 || !strings.HasSuffix(sk.Content, "}\n{\"query\": \"Tokyo population 2026 current\"}") {
		t.Errorf("the search's call was not kept with its query: %+v", sk)
	}
	if sk := resp.Skipped[1]; !strings.Contains(sk.Content, "https://worldpopulationreview.com/cities/japan/tokyo") || len(sk.Content) > maxSkippedContent+len("…") {
		t.Errorf("the search's results: %d bytes: %.200s", len(sk.Content), sk.Content)
	}
	if sk := resp.Skipped[2]; sk.Count != 7 || !strings.Contains(sk.Content, "36,953,600") {
		t.Errorf("citations: %+v", sk)
	}
	if !strings.Contains(resp.Text, "Tokyo") || len(resp.ToolCalls) != 0 {
		t.Errorf("text %q, calls %v", resp.Text, resp.ToolCalls)
	}
}

func TestRecordedGPT5ThroughChatGetsMaxCompletionTokens(t *testing.T) {
	r := replay(t, cassette(t, "TestAzureThinking/azure-gpt-5-mini/thinking-streaming.yaml"), 0,
		func(req *Request) { req.ReasoningEffort = "high" })
	b := body(t, r, 0)
	wantAt(t, b, 4096.0, "max_completion_tokens")
	wantAt(t, b, nil, "max_tokens")
	wantAt(t, b, "high", "reasoning_effort")
	wantEq(t, "reasoning tokens", r.resps[0].Usage.Reasoning, int64(64))
}
