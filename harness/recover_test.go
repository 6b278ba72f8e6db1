package harness

import (
	"encoding/json"
	"testing"
)

// TestRecoverMarksInterruptedTurns leaves sessions as a killed process would (a turn mid tool
// call, a model call without its answer, an approval waited for, a user's command cut off) and
// a session at rest: reopening records each cut-short turn as interrupted, closes its open calls
// exactly once, and leaves the resting session and a pending prompt alone.
func TestRecoverMarksInterruptedTurns(t *testing.T) {
	home := t.TempDir()
	h, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mk := func(name string, recs ...any) *Session {
		s, err := h.NewSession(NewSessionOptions{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			rs := r.([2]any)
			if _, err := h.Append(s.ID, MustRecord(rs[0].(string), ActorHarness, rs[1])); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	step := [2]any{TypeStepStarted, StepStarted{Step: 1}}
	asked := [2]any{TypeModelRequested, ModelRequested{Model: "m"}}
	answered := [2]any{TypeModelCompleted, ModelCompleted{Model: "m", ToolCalls: []ToolCall{{ID: "c1", Name: "bash", Arguments: json.RawMessage(`{}`)}}}}
	tool := [2]any{TypeToolStarted, ToolStarted{CallID: "c1", Tool: "bash"}}
	inTool := mk("in-tool", step, asked, answered, tool)
	inModel := mk("in-model", step, asked)
	waiting := mk("waiting", step, asked, answered, [2]any{TypeApprovalRequested, ApprovalRequested{CallID: "c1", Tool: "bash"}})
	rest := mk("at-rest", step, asked, [2]any{TypeModelCompleted, ModelCompleted{Model: "m", Text: "done"}})
	pending := mk("pending", [2]any{TypeInvocationReceived, InvocationReceived{Text: "later"}})
	h.Close()

	for round := 0; round < 2; round++ {
		h, err = Open(home, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			s      *Session
			status Status
			closed int
		}{{inTool, StatusInterrupted, 1}, {inModel, StatusInterrupted, 0}, {waiting, StatusInterrupted, 0}, {rest, StatusIdle, 0}, {pending, StatusPending, 0}} {
			st, err := h.State(c.s.ID)
			if err != nil {
				t.Fatal(err)
			}
			evs, _ := h.Events(c.s.ID, 0, 0)
			closed := 0
			for _, e := range evs {
				if e.Type == TypeToolCompleted {
					closed++
				}
			}
			if st.Status != c.status || closed != c.closed || len(st.OpenCalls) != 0 && c.status == StatusInterrupted {
				t.Fatalf("round %d: %s is %s with %d calls closed, want %s and %d", round, c.s.Name, st.Status, closed, c.status, c.closed)
			}
		}
		if rep := h.Recovery(); round == 0 && len(rep.Interrupted) != 3 || round == 1 && !rep.Empty() {
			t.Fatalf("round %d: recovery %+v", round, rep)
		}
		h.Close()
	}
}
