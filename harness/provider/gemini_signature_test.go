package provider

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// switchedHistory is a conversation whose earlier turns another model made (an Anthropic
// thinking block, Anthropic call ids), then a turn of Gemini's own: the user's prompt, two
// parallel calls by another model, their results, a signed call of this Gemini, an unsigned
// one, a call signed by another endpoint.
func switchedHistory() []Message {
	claude := "api.anthropic.com claude-sonnet-4-5"
	here := "127.0.0.1 gemini-3-pro-preview" // the test server's origin
	return []Message{
		{Role: RoleUser, Text: "first"},
		{Role: RoleAssistant, Text: "old", ToolCalls: []ToolCall{{ID: "toolu_old", Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)}},
			Reasoning: []Reasoning{{Format: ReasoningAnthropic, Type: "thinking", Text: "hm", Signature: "c2ln", Origin: claude}}},
		{Role: RoleTool, ToolCallID: "toolu_old", Text: "a"},
		{Role: RoleAssistant, Text: "done"},
		{Role: RoleUser, Text: "now"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{
			{ID: "toolu_1", Name: "bash", Arguments: json.RawMessage(`{"command":"pwd"}`)},
			{ID: "toolu_2", Name: "bash", Arguments: json.RawMessage(`{"command":"id"}`)}},
			Reasoning: []Reasoning{{Format: ReasoningAnthropic, Type: "thinking", Text: "hm", Signature: "c2ln", Origin: claude}}},
		{Role: RoleTool, ToolCallID: "toolu_1", Text: "/w"},
		{Role: RoleTool, ToolCallID: "toolu_2", Text: "root"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "exo-gemini-r1-0", Name: "bash", Arguments: json.RawMessage(`{"command":"date"}`)}},
			Reasoning: []Reasoning{{Format: ReasoningGemini, Type: "function_call", ID: "exo-gemini-r1-0", Signature: "AQID", Origin: here}}},
		{Role: RoleTool, ToolCallID: "exo-gemini-r1-0", Text: "today"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "exo-gemini-r2-0", Name: "bash", Arguments: json.RawMessage(`{"command":"uptime"}`)}}},
		{Role: RoleTool, ToolCallID: "exo-gemini-r2-0", Text: "up"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "exo-gemini-r3-0", Name: "bash", Arguments: json.RawMessage(`{"command":"who"}`)}},
			Reasoning: []Reasoning{{Format: ReasoningGemini, Type: "function_call", ID: "exo-gemini-r3-0", Signature: "BAUG", Origin: "localhost:8080 gemini-3-pro-preview"}}},
		{Role: RoleTool, ToolCallID: "exo-gemini-r3-0", Text: "me"},
	}
}

// switchedContents is the request's contents for switchedHistory, byte for byte: the current
// turn's steps each lead with a signed call (the dummy where Gemini did not sign it, the second
// parallel call left as the API sends it), the earlier turn left unsigned (the API checks only
// the current turn).
const switchedContents = `{"contents":[{"parts":[{"text":"first"}],"role":"user"},` +
	`{"parts":[{"text":"old"},{"functionCall":{"id":"toolu_old","args":{"command":"ls"},"name":"bash"}}],"role":"model"},` +
	`{"parts":[{"functionResponse":{"id":"toolu_old","name":"bash","response":{"result":"a"}}}],"role":"user"},` +
	`{"parts":[{"text":"done"}],"role":"model"},` +
	`{"parts":[{"text":"now"}],"role":"user"},` +
	`{"parts":[{"functionCall":{"id":"toolu_1","args":{"command":"pwd"},"name":"bash"},"thoughtSignature":"skip_thought_signature_validator"},{"functionCall":{"id":"toolu_2","args":{"command":"id"},"name":"bash"}}],"role":"model"},` +
	`{"parts":[{"functionResponse":{"id":"toolu_1","name":"bash","response":{"result":"/w"}}},{"functionResponse":{"id":"toolu_2","name":"bash","response":{"result":"root"}}}],"role":"user"},` +
	`{"parts":[{"functionCall":{"args":{"command":"date"},"name":"bash"},"thoughtSignature":"AQID"}],"role":"model"},` +
	`{"parts":[{"functionResponse":{"name":"bash","response":{"result":"today"}}}],"role":"user"},` +
	`{"parts":[{"functionCall":{"args":{"command":"uptime"},"name":"bash"},"thoughtSignature":"skip_thought_signature_validator"}],"role":"model"},` +
	`{"parts":[{"functionResponse":{"name":"bash","response":{"result":"up"}}}],"role":"user"},` +
	`{"parts":[{"functionCall":{"args":{"command":"who"},"name":"bash"},"thoughtSignature":"skip_thought_signature_validator"}],"role":"model"},` +
	`{"parts":[{"functionResponse":{"name":"bash","response":{"result":"me"}}}],"role":"user"}]`

// TestGeminiDummySignatureOnSwitchedHistory: history another model made (or a Gemini call
// recorded without a signature, or signed by another endpoint) goes to Gemini with the
// documented dummy signature on the first call of each step of the current turn, as the
// request body on the wire shows byte for byte.
func TestGeminiDummySignatureOnSwitchedHistory(t *testing.T) {
	t.Parallel()
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"ok\"}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}]}\r\n\r\n")
	}))
	defer srv.Close()
	p := NewGemini(Config{BaseURL: srv.URL, APIKey: "k"})
	if _, err := p.Stream(context.Background(), Request{Model: "gemini-3-pro-preview", Messages: switchedHistory()}, nil); err != nil {
		t.Fatal(err)
	}
	if want := switchedContents + `,"generationConfig":{"thinkingConfig":{"includeThoughts":true}}}`; string(got) != want {
		t.Fatalf("body\n%s\nwant\n%s", got, want)
	}
}

// TestGeminiDummySignatureOnlyInCurrentTurn: a conversation whose current turn has no call gets
// no dummy anywhere (the earlier turns' calls are not checked by the API), and a signature that
// happens to be the dummy's bytes in the standard alphabet is the same value to the API.
func TestGeminiDummySignatureOnlyInCurrentTurn(t *testing.T) {
	t.Parallel()
	msgs := append(switchedHistory(), Message{Role: RoleAssistant, Text: "all done"}, Message{Role: RoleUser, Text: "thanks"})
	b, err := geminiBody(geminiParams(Request{Model: "gemini-2.5-flash", Messages: msgs}, "generativelanguage.googleapis.com gemini-2.5-flash"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), GeminiDummySignature) || strings.Contains(string(b), dummyStd) {
		t.Fatalf("a dummy outside the current turn:\n%s", b)
	}
	if dummyStd != "skip/thought/signature/validator" || len(dummySignature) != 24 {
		t.Fatalf("the dummy's bytes: %q %d", dummyStd, len(dummySignature))
	}
}
