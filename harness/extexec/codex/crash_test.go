package codex

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
)

// TestCodexKilledWhileAnApprovalWaits: codex killed (SIGKILL) while exo's approval of its native
// command waits for the user: the turn ends promptly as failed with executor.failed, no approval
// stays pending and no call open, nothing of codex's process group is left, and the next prompt
// runs.
func TestCodexKilledWhileAnApprovalWaits(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{NativeTools: true, Exec: executor.Options{Approvals: map[string]string{"bash": "ask"}, ApprovalTimeout: 10 * time.Minute}})
	ch, stop := f.h.Subscribe(256)
	defer stop()
	killed := make(chan int, 1)
	go func() {
		for n := range ch {
			for _, e := range n.Events {
				if e.Type == harness.TypeApprovalRequested && n.Session == f.s.ID {
					p := x.Session(f.s.ID).Proc.(*proc).Pid()
					syscall.Kill(-p, syscall.SIGKILL)
					killed <- p
					return
				}
			}
		}
	}()
	start := time.Now()
	res, err := x.Prompt(context.Background(), f.s.ID, "native command please", "test")
	if err != nil || !strings.Contains(res.Failure, "codex exited") {
		t.Fatalf("the turn whose codex was killed: %v %+v", err, res)
	}
	if took := time.Since(start); took > 3*time.Minute {
		t.Fatalf("the turn took %s to end after the kill", took)
	}
	p := <-killed
	st, _ := f.h.State(f.s.ID)
	if len(st.Approvals) > 0 || len(st.OpenCalls) > 0 || st.ModelInFlight != 0 || st.Status != harness.StatusFailed {
		t.Fatalf("state after the kill: approvals %v, open calls %v, model %d, status %s (events %s)", st.Approvals, st.OpenCalls, st.ModelInFlight, st.Status, types(f.events(t, f.s.ID)))
	}
	deadline := time.Now().Add(time.Minute)
	for syscall.Kill(-p, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("processes of the killed codex's group %d are left", p)
		}
		time.Sleep(50 * time.Millisecond)
	}
	res, err = x.Prompt(context.Background(), f.s.ID, "say hello", "test")
	okResult(t, res, err)
}
