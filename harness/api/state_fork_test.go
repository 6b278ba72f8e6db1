package api

import (
	"strings"
	"testing"
)

// TestForkMidTurnIsNotRunning folds a branch forked while a turn ran (a model call and a tool
// call in flight, an approval waiting): the fork is idle, with nothing in flight, and names its
// source session rather than a branch id.
func TestForkMidTurnIsNotRunning(t *testing.T) {
	st := &SessionState{}
	st.Apply(mustEvent(t, 1, TypeInvocationReceived, InvocationReceived{Text: "go"}))
	st.Apply(mustEvent(t, 2, TypeStepStarted, StepStarted{}))
	st.Apply(mustEvent(t, 3, TypeToolStarted, ToolStarted{CallID: "c1", Tool: "bash", Summary: "sleep 30"}))
	st.Apply(mustEvent(t, 4, TypeApprovalRequested, ApprovalRequested{CallID: "c1", Tool: "bash"}))
	st.Apply(mustEvent(t, 5, TypeModelRequested, ModelRequested{}))
	if st.Status != StatusRunning {
		t.Fatalf("mid-turn status %s", st.Status)
	}
	st.Apply(mustEvent(t, 6, TypeSessionForked, SessionForked{FromSession: "6b04b38622b76721", FromName: "health-check",
		FromBranch: "6b04b38622b76721", AtSeq: 5, Name: "side"}))
	if st.Status != StatusIdle || st.ModelInFlight != 0 || len(st.Approvals) != 0 {
		t.Fatalf("fork: status %s, model in flight %d, approvals %v", st.Status, st.ModelInFlight, st.Approvals)
	}
	for _, it := range st.Items {
		if it.Kind == ItemTool && it.Status == "running" {
			t.Fatalf("tool %s still running in the fork", it.CallID)
		}
	}
	last := st.Items[len(st.Items)-1].Text
	if !strings.Contains(last, "forked from health-check@5") || strings.Contains(last, "6b04b386") {
		t.Fatalf("fork notice %q", last)
	}
}
