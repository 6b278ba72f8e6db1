package executor

import (
	"encoding/json"
	"reflect"
	"testing"

	"exo/harness"
	"exo/harness/provider"
	"exo/store"
)

// viewOf folds records into a fresh view, numbering them from 1.
func viewOf(recs ...store.Record) *View {
	v := newView("b", "gpt-5")
	for i, r := range recs {
		v.Apply(harness.Event{Seq: uint64(i + 1), Type: r.Type, Actor: r.Actor, Data: r.Data})
	}
	return v
}

// TestViewKeepsReasoningAcrossTurns folds a tool loop with reasoning, its answer and a new
// user turn: every answer keeps its reasoning exactly as recorded (DeepSeek refuses a second
// turn whose earlier tool calls lost their reasoning_content, and a changed past costs the
// prompt cache), and the token count includes it, message by message.
func TestViewKeepsReasoningAcrossTurns(t *testing.T) {
	thinking := []harness.Reasoning{{Format: provider.ReasoningContent, Text: "Check the weather tool first.", Origin: "api.deepseek.com deepseek-reasoner"}}
	answer := []harness.Reasoning{{Format: provider.ReasoningAnthropic, Type: "thinking", Text: "It said 40 C.", Signature: "EtYD"}}
	code := 0
	recs := []store.Record{
		harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: "weather in Florence?"}),
		harness.MustRecord(harness.TypeModelCompleted, "executor:default", harness.ModelCompleted{Reasoning: thinking,
			ToolCalls: []harness.ToolCall{{ID: "t1", Name: "bash", Arguments: json.RawMessage(`{"command":"weather"}`)}}}),
		harness.MustRecord(harness.TypeToolCompleted, "tool:bash", harness.ToolCompleted{CallID: "t1", Tool: "bash", Output: "40 C", ExitCode: &code}),
		harness.MustRecord(harness.TypeModelCompleted, "executor:default", harness.ModelCompleted{Text: "40 C.", Reasoning: answer}),
		harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: "and Rome?"}),
	}
	v := viewOf(recs...)
	if len(v.Messages) != 5 {
		t.Fatalf("%d messages: %+v", len(v.Messages), v.Messages)
	}
	if got := v.Messages[1].Reasoning; !reflect.DeepEqual(got, thinking) {
		t.Errorf("the tool call's reasoning after a new user turn: %+v", got)
	}
	if got := v.Messages[3].Reasoning; !reflect.DeepEqual(got, answer) {
		t.Errorf("the answer's reasoning after a new user turn: %+v", got)
	}
	plain := make([]store.Record, len(recs))
	for i, r := range recs {
		plain[i] = r
		if r.Type == harness.TypeModelCompleted {
			var c harness.ModelCompleted
			_ = json.Unmarshal(r.Data, &c)
			c.Reasoning = nil
			plain[i] = harness.MustRecord(r.Type, r.Actor, c)
		}
	}
	want := v.count(provider.ReasoningText(thinking)) + v.count(provider.ReasoningText(answer))
	if p := viewOf(plain...); v.Tokens != p.Tokens+want {
		t.Errorf("tokens %d, %d without reasoning + %d of reasoning", v.Tokens, p.Tokens, want)
	}
	sum := 0
	for _, md := range v.meta {
		sum += md.tokens
	}
	if sum != v.Tokens {
		t.Errorf("per-message tokens sum to %d, view says %d", sum, v.Tokens)
	}
}
