package claude

import (
	"context"
	"errors"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/modeltest"
)

// TestClaudeKilledAtEachPhase kills claude with SIGKILL while an approval of exo's waits for the
// user, while exo's bash runs its command, and while the answer streams: each time the turn ends
// promptly as failed with executor.failed, no call stays open and no approval pending, no process
// of claude's group is left, and the next prompt runs.
func TestClaudeKilledAtEachPhase(t *testing.T) {
	sc := &modeltest.Script{Prompts: []modeltest.Prompt{
		{When: "ask first", Turns: []modeltest.Turn{{ToolCalls: []modeltest.Call{{Name: "mcp__exo__bash", Input: map[string]any{"command": "echo asked > asked.txt"}}}}, {Text: "Asked."}}},
		{When: "run long", Turns: []modeltest.Turn{{ToolCalls: []modeltest.Call{{Name: "mcp__exo__bash", Input: map[string]any{"command": "sleep 120"}}}}, {Text: "Slept."}}},
		{When: "stream slowly", Turns: []modeltest.Turn{{Text: strings.Repeat("a slow answer ", 200), Chunk: 4, DelayMs: 20}}},
		{Turns: []modeltest.Turn{{Text: "Hello."}}},
	}}
	for _, c := range []struct {
		phase, prompt string
		approvals     map[string]string
		// when waits for the phase and reports when it came.
		when func(f *fixture, deltas <-chan struct{}) <-chan struct{}
	}{
		{"approval pending", "ask first", map[string]string{"bash": "ask"}, func(f *fixture, _ <-chan struct{}) <-chan struct{} {
			return eventSeen(f, harness.TypeApprovalRequested)
		}},
		{"tool running", "run long", nil, func(f *fixture, _ <-chan struct{}) <-chan struct{} {
			return eventSeen(f, harness.TypeToolStarted)
		}},
		{"mid-stream", "stream slowly", nil, func(_ *fixture, deltas <-chan struct{}) <-chan struct{} { return deltas }},
	} {
		t.Run(c.phase, func(t *testing.T) {
			f := scriptedFixture(t, t.TempDir(), "", sc, harness.Options{})
			deltas := make(chan struct{})
			var once sync.Once
			x := f.executor(t, Options{Exec: executor.Options{Approvals: c.approvals, ApprovalTimeout: 10 * time.Minute,
				OnDelta: func(_, _ string) { once.Do(func() { close(deltas) }) }}})
			at := c.when(f, deltas)
			killed := make(chan int, 1)
			go func() {
				<-at
				p := pid(x, f.s.ID)
				syscall.Kill(p, syscall.SIGKILL)
				killed <- p
			}()
			start := time.Now()
			res, err := x.Prompt(context.Background(), f.s.ID, c.prompt, "test")
			if err != nil || !strings.Contains(res.Failure, "exited") {
				t.Fatalf("the turn whose claude was killed: %v %+v", err, res)
			}
			if took := time.Since(start); took > 3*time.Minute {
				t.Fatalf("the turn took %s to end after the kill", took)
			}
			p := <-killed
			evs := f.events(t, f.s.ID)
			if n := len(payloads[harness.ExecutorFailed](t, evs, harness.TypeExecutorFailed)); n != 1 {
				t.Fatalf("%d executor.failed: %s", n, types(evs))
			}
			st, _ := f.h.State(f.s.ID)
			if len(st.OpenCalls) > 0 || len(st.Approvals) > 0 || st.ModelInFlight != 0 || st.Status != harness.StatusFailed {
				t.Fatalf("state after the kill: %+v (events %s)", st, types(evs))
			}
			// Nothing of claude's process group is left (its PID namespace's processes die with it).
			deadline := time.Now().Add(time.Minute)
			for syscall.Kill(-p, 0) == nil {
				if time.Now().After(deadline) {
					t.Fatalf("processes of the killed claude's group %d are left", p)
				}
				time.Sleep(50 * time.Millisecond)
			}
			if err := syscall.Kill(-p, 0); !errors.Is(err, syscall.ESRCH) {
				t.Fatalf("claude's group: %v", err)
			}
			res, err = x.Prompt(context.Background(), f.s.ID, "say hello", "test")
			okResult(t, res, err)
		})
	}
}

// eventSeen is closed once an event of type typ is committed in f's session.
func eventSeen(f *fixture, typ string) <-chan struct{} {
	ch, stop := f.h.Subscribe(256)
	out := make(chan struct{})
	go func() {
		defer stop()
		for n := range ch {
			for _, e := range n.Events {
				if e.Type == typ && n.Session == f.s.ID {
					close(out)
					return
				}
			}
		}
	}()
	return out
}
