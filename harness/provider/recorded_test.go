package provider

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"exo/harness/provider/providertest"
)

// recordedDir holds the cassettes recorded from live services.
var recordedDir = filepath.Join("..", "..", "testdata", "providers", "recorded")

// loadCassettes reads every recorded cassette.
func loadCassettes(t testing.TB) []*providertest.Cassette {
	cs, err := providertest.Cassettes(recordedDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) < 100 {
		t.Fatalf("only %d cassettes under %s", len(cs), recordedDir)
	}
	return cs
}

// providerFor builds the provider speaking a cassette's wire format.
func providerFor(wire, baseURL string) Provider {
	switch wire {
	case providertest.WireAnthropic:
		return NewAnthropic(Config{APIKey: "k", BaseURL: baseURL})
	case providertest.WireResponses:
		return NewOpenAI(Config{APIKey: "k", BaseURL: baseURL + "/v1"})
	}
	return NewOpenAICompatible(Config{APIKey: "k", BaseURL: baseURL + "/v1"})
}

// replayed is one cassette played through exo's provider.
type replayed struct {
	resps  []Response
	deltas []*recorder
	reqs   []providertest.Seen
}

// replay plays every interaction of c through the provider, answering
// tool calls with "40 C" as the recordings did, the body cut into pieces of
// chunk bytes.
func replay(t *testing.T, c *providertest.Cassette, chunk int, adjust ...func(*Request)) replayed {
	t.Helper()
	srv := providertest.NewReplyServer(c.Replies(chunk)...)
	defer srv.Close()
	p := providerFor(c.Wire(), srv.URL)
	var first map[string]any
	_ = json.Unmarshal([]byte(c.Interactions[0].Request.Body), &first)
	model, _ := first["model"].(string)
	req := Request{Model: model, System: "You are a helpful assistant", MaxOutputTokens: 4096,
		Messages: []Message{{Role: RoleUser, Text: "What's the weather in Florence, Italy?"}},
		Tools: []Tool{{Name: "weather", Description: "Get weather information for a location",
			Schema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`)}}}
	for _, f := range adjust {
		f(&req)
	}
	var out replayed
	for i := range c.Interactions {
		rec := &recorder{}
		resp, err := p.Stream(context.Background(), req, rec.add)
		if err != nil {
			t.Fatalf("interaction %d: %v", i, err)
		}
		out.resps, out.deltas = append(out.resps, resp), append(out.deltas, rec)
		req.Messages = append(req.Messages, Message{Role: RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls, Reasoning: resp.Reasoning})
		for _, tc := range resp.ToolCalls {
			req.Messages = append(req.Messages, Message{Role: RoleTool, ToolCallID: tc.ID, Text: "40 C"})
		}
		if len(resp.ToolCalls) == 0 {
			req.Messages = append(req.Messages, Message{Role: RoleUser, Text: "Thanks."})
		}
	}
	out.reqs = srv.Requests()
	return out
}

// TestRecordedStreams replays every stream recorded from live services
// (Anthropic, Vertex, OpenAI Chat and Responses, Azure, OpenRouter, Vercel,
// Groq, xAI, Z.ai, Hugging Face, llama.cpp, ...), whole and cut into 3-byte
// pieces, and checks what each answer must hold.
func TestRecordedStreams(t *testing.T) {
	streams := 0
	for _, c := range loadCassettes(t) {
		name, _ := filepath.Rel(recordedDir, c.Path)
		t.Run(name, func(t *testing.T) {
			whole := replay(t, c, 0)
			cut := replay(t, c, 3)
			for i, resp := range whole.resps {
				checkAnswer(t, c, i, resp, whole.deltas[i])
				if !reflect.DeepEqual(stripTiming(resp), stripTiming(cut.resps[i])) {
					t.Errorf("interaction %d differs when cut into 3-byte pieces", i)
				}
			}
			checkRoundTrip(t, c, whole)
		})
		streams += len(c.Interactions)
	}
	if streams < 200 {
		t.Errorf("replayed %d streams, want the 200+ recorded", streams)
	}
}

// stripTiming clears what differs from one run to the next.
func stripTiming(r Response) Response {
	r.TTFT = 0
	return r
}

// checkAnswer checks one decoded answer against its deltas and the
// invariants every recorded answer meets.
func checkAnswer(t *testing.T, c *providertest.Cassette, i int, resp Response, rec *recorder) {
	t.Helper()
	texts, _, _ := rec.texts()
	if got := strings.Join(texts, ""); got != resp.Text {
		t.Errorf("interaction %d: text deltas %q != text %q", i, got, resp.Text)
	}
	if resp.Text == "" && len(resp.ToolCalls) == 0 {
		t.Errorf("interaction %d: neither text nor tool calls", i)
	}
	for _, tc := range resp.ToolCalls {
		var obj map[string]any
		if tc.ID == "" || tc.Name == "" || json.Unmarshal(tc.Arguments, &obj) != nil {
			t.Errorf("interaction %d: bad tool call %+v", i, tc)
		}
	}
	if resp.Usage.Input <= 0 || resp.Usage.Output <= 0 {
		t.Errorf("interaction %d: usage %+v", i, resp.Usage)
	}
	if resp.Usage.Reasoning > resp.Usage.Output || resp.Usage.Cached > resp.Usage.Input {
		t.Errorf("interaction %d: inconsistent usage %+v", i, resp.Usage)
	}
	var shown strings.Builder
	for _, d := range rec.deltas {
		if d.Kind == DeltaReasoning {
			shown.WriteString(d.Text)
		}
	}
	if (strings.TrimSpace(shown.String()) != "") != (ReasoningText(resp.Reasoning) != "") {
		t.Errorf("interaction %d: reasoning shown %q but recorded %q", i, shown.String(), ReasoningText(resp.Reasoning))
	}
	if strings.Contains(c.Path, "Thinking") && i == 0 && c.Wire() != "" && len(resp.Reasoning) == 0 && !noReasoningSent(c) {
		t.Errorf("thinking stream without reasoning parts")
	}
}

// noReasoningSent lists the thinking recordings whose service sent no
// reasoning at all (Azure's Chat Completions hides it; Avian sends none).
func noReasoningSent(c *providertest.Cassette) bool {
	return strings.Contains(c.Path, "TestAzureThinking") || strings.Contains(c.Path, "avian")
}

// checkRoundTrip checks that exo's next request carried the previous
// answer's reasoning back as the recording client did: the same
// reasoning_content, the same reasoning_details entries, the same thinking
// blocks.
func checkRoundTrip(t *testing.T, c *providertest.Cassette, r replayed) {
	t.Helper()
	for i := 1; i < len(c.Interactions) && i < len(r.reqs); i++ {
		var rec, ours map[string]any
		_ = json.Unmarshal([]byte(c.Interactions[i].Request.Body), &rec)
		_ = json.Unmarshal(r.reqs[i].Body, &ours)
		switch c.Wire() {
		case providertest.WireChat:
			sameChatReasoning(t, assistantOf(rec["messages"]), assistantOf(ours["messages"]))
		case providertest.WireAnthropic:
			sameThinking(t, assistantOf(rec["messages"]), assistantOf(ours["messages"]))
		case providertest.WireResponses:
			sameReasoningItems(t, r.resps[i-1], ours)
		}
	}
}

// assistantOf returns the first assistant message of a messages array.
func assistantOf(v any) map[string]any {
	msgs, _ := v.([]any)
	for _, m := range msgs {
		if mm, ok := m.(map[string]any); ok && mm["role"] == "assistant" {
			return mm
		}
	}
	return nil
}

// sameChatReasoning checks reasoning_content and every recorded
// reasoning_details entry are in exo's assistant message.
func sameChatReasoning(t *testing.T, rec, ours map[string]any) {
	t.Helper()
	if rec == nil {
		return
	}
	if rc, ok := rec["reasoning_content"]; ok && rec["tool_calls"] != nil {
		wantEq(t, "reasoning_content sent back", ours["reasoning_content"], rc)
	}
	recDetails, _ := rec["reasoning_details"].([]any)
	oursDetails, _ := ours["reasoning_details"].([]any)
	for _, d := range recDetails {
		if !containsOpaque(oursDetails, d.(map[string]any)) {
			t.Errorf("reasoning_details entry not sent back:\n%v\nsent: %v", d, oursDetails)
		}
	}
}

// containsOpaque reports whether list holds an entry with the same
// signature and encrypted data as want, or, for an entry with neither, one
// at the same index (the recording client's own merge of text pieces is not
// a reference: it lost pieces and renamed summaries to text).
func containsOpaque(list []any, want map[string]any) bool {
	for _, x := range list {
		m, _ := x.(map[string]any)
		if want["signature"] == nil && want["data"] == nil && m["index"] == want["index"] {
			return true
		}
		if m["type"] == want["type"] && m["signature"] == want["signature"] && m["data"] == want["data"] {
			return true
		}
	}
	return false
}

// sameThinking checks the recorded assistant message's thinking blocks are
// exo's, unchanged and first.
func sameThinking(t *testing.T, rec, ours map[string]any) {
	t.Helper()
	recBlocks, _ := rec["content"].([]any)
	oursBlocks, _ := ours["content"].([]any)
	for i, b := range recBlocks {
		m, _ := b.(map[string]any)
		if m["type"] != "thinking" && m["type"] != "redacted_thinking" {
			continue
		}
		if i >= len(oursBlocks) || !reflect.DeepEqual(oursBlocks[i], b) {
			t.Errorf("thinking block %d not sent back unchanged:\nwant %v\nsent %v", i, b, oursBlocks)
		}
	}
}

// sameReasoningItems checks the previous answer's reasoning items went back
// with their encrypted content.
func sameReasoningItems(t *testing.T, prev Response, ours map[string]any) {
	t.Helper()
	in, _ := ours["input"].([]any)
	for _, r := range prev.Reasoning {
		if r.Data == "" {
			continue // not requested: the recording asked for no encrypted content
		}
		want := map[string]any{"type": "reasoning", "id": r.ID, "encrypted_content": r.Data}
		found := false
		for _, it := range in {
			m, _ := it.(map[string]any)
			found = found || (m["type"] == want["type"] && m["id"] == want["id"] && m["encrypted_content"] == want["encrypted_content"])
		}
		if !found {
			t.Errorf("reasoning item %s not sent back with its encrypted content", r.ID)
		}
	}
}
