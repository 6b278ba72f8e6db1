package executor

import (
	"encoding/json"
	"testing"

	"exo/harness"
	"exo/harness/provider"
	"exo/store"
)

// viewOf folds records into a fresh view, numbering them from 1.
func viewOf(recs ...store.Record) *View {
	v := newView("b", "gpt-5")
	for i, r := range recs {
		v.Apply(store.Event{Seq: uint64(i + 1), Type: r.Type, Actor: r.Actor, Data: r.Data})
	}
	return v
}

func TestViewKeepsReasoningForTheTurnThatMadeIt(t *testing.T) {
	thinking := []harness.Reasoning{{Format: provider.ReasoningAnthropic, Type: "thinking", Text: "Check the weather tool first.", Signature: "EtYD"}}
	code := 0
	recs := []store.Record{
		harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: "weather in Florence?"}),
		harness.MustRecord(harness.TypeModelCompleted, "executor:default", harness.ModelCompleted{Reasoning: thinking,
			ToolCalls: []harness.ToolCall{{ID: "t1", Name: "bash", Arguments: json.RawMessage(`{"command":"weather"}`)}}}),
		harness.MustRecord(harness.TypeToolCompleted, "tool:bash", harness.ToolCompleted{CallID: "t1", Tool: "bash", Output: "40 C", ExitCode: &code}),
	}
	v := viewOf(recs...)
	if got := v.Messages[1].Reasoning; len(got) != 1 || got[0].Signature != "EtYD" {
		t.Fatalf("within the turn the reasoning goes back to the model: %+v", v.Messages[1])
	}
	recs = append(recs,
		harness.MustRecord(harness.TypeModelCompleted, "executor:default", harness.ModelCompleted{Text: "40 C.", Reasoning: thinking}),
		harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: "and Rome?"}))
	v = viewOf(recs...)
	for i, m := range v.Messages {
		if len(m.Reasoning) > 0 {
			t.Errorf("message %d keeps the previous turn's reasoning", i)
		}
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
	if p := viewOf(plain...); v.Tokens != p.Tokens {
		t.Errorf("tokens %d, %d without any reasoning: the dropped reasoning is still counted", v.Tokens, p.Tokens)
	}
	sum := 0
	for _, md := range v.meta {
		sum += md.tokens
	}
	if sum != v.Tokens {
		t.Errorf("per-message tokens sum to %d, view says %d", sum, v.Tokens)
	}
}
