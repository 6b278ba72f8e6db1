package conformance

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/exectest"
)

// KillAtApproval: the agent killed with SIGKILL while exo's approval of its bash call waits for
// the user (exectest.KillMidTurn: the turn ends promptly as failed, nothing is left pending or
// open, nothing of the agent's group is left, the next prompt runs).
func KillAtApproval(t *testing.T, s *Suite) {
	f := s.Fixture(t, "", harness.Options{})
	x := f.Open(t, Options{Exec: executor.Options{Approvals: map[string]string{"bash": "ask"}, ApprovalTimeout: 10 * time.Minute}})
	f.kill(t, x, promptAsk, "(approval)", exectest.EventSeen(f.H, f.Sess.ID, harness.TypeApprovalRequested))
}

// KillInTool: the agent killed while exo's bash runs its command for it.
func KillInTool(t *testing.T, s *Suite) {
	f := s.Fixture(t, "", harness.Options{})
	x := f.Open(t, Options{})
	f.kill(t, x, promptLong, "(tool)", exectest.EventSeen(f.H, f.Sess.ID, harness.TypeToolStarted))
}

// KillMidStream: the agent killed while the model's answer streams.
func KillMidStream(t *testing.T, s *Suite) {
	f := s.Fixture(t, "", harness.Options{})
	deltas := make(chan struct{})
	var once sync.Once
	x := f.Open(t, Options{Exec: executor.Options{OnDelta: func(_, _ string) { once.Do(func() { close(deltas) }) }}})
	f.kill(t, x, promptStream, "(stream)", deltas)
}

// kill runs exectest.KillMidTurn on the fixture's session, then checks the agent started for
// the next prompt (marked by mark) was given the killed turn's prompt: the conversation goes on.
func (f *Fixture) kill(t *testing.T, x Executor, prompt, mark string, at <-chan struct{}) {
	t.Helper()
	if x.Runner == nil {
		t.Fatalf("%s has no agent process to kill: list the kill behaviours as not applicable", f.S.A.Name)
	}
	next := promptHello + " after the kill " + mark
	exectest.KillMidTurn(t, x.Runner, f.Sess.ID, exectest.Kill{Agent: f.S.A.Name, Prompt: prompt, At: at, Group: f.S.A.KillGroup, Failure: "exited", Next: next})
	knows := false
	for _, q := range f.S.requestsWith(next) {
		knows = knows || bytes.Contains(q.Body, []byte(prompt))
	}
	if !knows {
		t.Fatalf("the agent started after the kill does not know the killed turn's prompt %q", prompt)
	}
}
