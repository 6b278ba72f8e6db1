package api

import (
	"strings"
	"testing"
)

// TestCutAnswerFoldsAsACutItem: a cut model.completed counts in usage and cost, leaves the
// session idle, and its items carry the cut; its summary says it was cut and which calls did not
// run. A model.completed written before cut answers existed reads as whole.
func TestCutAnswerFoldsAsACutItem(t *testing.T) {
	st := NewSessionState("b")
	st.Apply(mustEvent(t, 1, TypeModelRequested, ModelRequested{Model: "m"}))
	e := mustEvent(t, 2, TypeModelCompleted, ModelCompleted{Model: "m", Text: "half", Reasoning: []Reasoning{{Text: "hmm"}},
		Usage: Usage{Input: 100, Output: 7}, Cost: 0.01, Cut: CutCancelled, UsageEstimated: true,
		CutCalls: []CutCall{NewCutCall("c1", "bash", `{"command":"ec`)}})
	st.Apply(e)
	if st.Usage.Output != 7 || st.Cost != 0.01 || st.ModelInFlight != 0 || st.Status != StatusIdle {
		t.Fatalf("state: %+v", st)
	}
	if n := len(st.Items); n != 2 || st.Items[0].Cut != CutCancelled || st.Items[1].Kind != ItemAssistant || st.Items[1].Cut != CutCancelled {
		t.Fatalf("items: %+v", st.Items)
	}
	if s := Summary(e); !strings.Contains(s, "→bash (not run: 14 bytes of arguments)") || !strings.Contains(s, "[cut: cancelled; 100/7 tok estimated]") {
		t.Fatalf("summary: %s", s)
	}
	old := Event{Branch: "b", Seq: 3, Type: TypeModelCompleted, Data: []byte(`{"model":"m","text":"whole","usage":{"input":1,"output":1},"stop_reason":"end_turn"}`)}
	st.Apply(old)
	if it := st.Items[len(st.Items)-1]; it.Text != "whole" || it.Cut != "" {
		t.Fatalf("an old answer: %+v", it)
	}
}

// TestCompactionStartedIsClosedByItsCost: a compaction.started is in flight until its
// compaction.cost, whose usage and cost count; a killed one's estimated cost is the prompt's.
func TestCompactionStartedIsClosedByItsCost(t *testing.T) {
	st := NewSessionState("b")
	p := CompactionStarted{Model: "m", FromSeq: 1, ToSeq: 9, PromptTokens: 5000, PromptCost: 0.02}
	st.Apply(mustEvent(t, 10, TypeCompactionStarted, p))
	if st.CompactionInFlight != 10 {
		t.Fatalf("in flight: %d", st.CompactionInFlight)
	}
	c := InterruptedCompaction(p)
	if c.Cut != CutKilled || !c.UsageEstimated || c.Usage.Input != 5000 || c.Cost != 0.02 {
		t.Fatalf("interrupted: %+v", c)
	}
	e := mustEvent(t, 11, TypeCompactionCost, c)
	st.Apply(e)
	if st.CompactionInFlight != 0 || st.Usage.Input != 5000 || st.Cost != 0.02 {
		t.Fatalf("state: %+v", st)
	}
	if s := Summary(e); !strings.Contains(s, "(estimated)") || !strings.Contains(s, "not applied (cut: exo was killed)") {
		t.Fatalf("summary: %s", s)
	}
}
