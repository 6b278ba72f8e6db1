package exectest

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/extexec"
)

// Kill is one kill of an agent in the middle of a turn.
type Kill struct {
	// Agent names the agent in failure messages ("claude", "codex", "agent").
	Agent string
	// Prompt starts the turn.
	Prompt string
	// At is closed when the turn has reached the phase to kill it in.
	At <-chan struct{}
	// Group kills the agent's whole process group; otherwise its process alone (whose own
	// children must then go with it, as a PID namespace's do).
	Group bool
	// Failure is a text the failed turn's failure must hold.
	Failure string
	// Next is the prompt run after the kill (default "say hello").
	Next string
}

// KillMidTurn runs k.Prompt on session sid with r, kills the agent with SIGKILL as soon as k.At
// is closed, and checks that the turn ends promptly (within 3 minutes) as failed with one
// executor.failed event, no approval pending, no call open and no model call in flight; that
// nothing of the agent's process group is left a minute later; and that the next prompt runs.
func KillMidTurn(t *testing.T, r *extexec.Runner, sid string, k Kill) {
	t.Helper()
	h := r.Harness()
	killed := make(chan int, 1)
	go func() {
		<-k.At
		p := Pid(r, sid)
		if p == 0 { // never kill(0): that is the test's own process group
			t.Errorf("no %s process runs session %s when the phase came", k.Agent, sid)
			close(killed)
			return
		}
		target := p
		if k.Group {
			target = -p
		}
		syscall.Kill(target, syscall.SIGKILL)
		killed <- p
	}()
	start := time.Now()
	res, err := r.Prompt(context.Background(), sid, k.Prompt, "test")
	if err != nil || !strings.Contains(res.Failure, k.Failure) {
		t.Fatalf("the turn whose %s was killed: %v %+v", k.Agent, err, res)
	}
	if took := time.Since(start); took > 3*time.Minute {
		t.Fatalf("the turn took %s to end after the kill", took)
	}
	p, ok := <-killed
	if !ok {
		t.FailNow()
	}
	evs := Events(t, h, sid)
	if n := count(evs, harness.TypeExecutorFailed); n != 1 {
		t.Fatalf("%d executor.failed: %s", n, Types(evs))
	}
	st, _ := h.State(sid)
	if len(st.Approvals) > 0 || len(st.OpenCalls) > 0 || st.ModelInFlight != 0 || st.Status != harness.StatusFailed {
		t.Fatalf("state after the kill: approvals %v, open calls %v, model %d, status %s (events %s)", st.Approvals, st.OpenCalls, st.ModelInFlight, st.Status, Types(evs))
	}
	deadline := time.Now().Add(time.Minute)
	for syscall.Kill(-p, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("processes of the killed %s's group %d are left", k.Agent, p)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := syscall.Kill(-p, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the killed %s's group: %v", k.Agent, err)
	}
	next := k.Next
	if next == "" {
		next = "say hello"
	}
	res, err = r.Prompt(context.Background(), sid, next, "test")
	if err != nil || res.Failure != "" || res.Cancelled {
		t.Fatalf("the next turn: err %v, result %+v", err, res)
	}
}

// EventSeen returns a channel closed once an event of type typ is committed in session sid.
func EventSeen(h *harness.Harness, sid, typ string) <-chan struct{} {
	ch, stop := h.Subscribe(256)
	out := make(chan struct{})
	go func() {
		defer stop()
		for n := range ch {
			for _, e := range n.Events {
				if e.Type == typ && n.Session == sid {
					close(out)
					return
				}
			}
		}
	}()
	return out
}

// Pid is the process id of the agent running session sid (0 when none runs).
func Pid(r *extexec.Runner, sid string) int {
	ss := r.Session(sid)
	if ss == nil || ss.Proc == nil {
		return 0
	}
	if p, ok := ss.Proc.(interface{ Pid() int }); ok {
		return p.Pid()
	}
	return 0
}
