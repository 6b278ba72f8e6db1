package claude

import (
	"bytes"
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/extexec/exectest"
)

func TestInterruptWhileTheModelAnswers(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-f.srv.Hanging(); cancel() }()
	res, err := x.Prompt(ctx, f.s.ID, "slow answer please", "test")
	if err != nil || !res.Cancelled {
		t.Fatalf("interrupted turn: %v %+v", err, res)
	}
	evs := f.events(t, f.s.ID)
	if got := exectest.Types(evs); !strings.HasSuffix(got, "model.requested executor.result turn.cancelled") {
		t.Fatalf("events %s", got)
	}
	if st, _ := f.h.State(f.s.ID); st.Status != harness.StatusIdle || st.ModelInFlight != 0 {
		t.Fatalf("state after interrupt %+v", st)
	}
	// The same claude takes the next prompt and knows the interrupted one.
	first := pid(x, f.s.ID)
	res, err = x.Prompt(context.Background(), f.s.ID, "say hello", "test")
	okResult(t, res, err)
	if pid(x, f.s.ID) != first {
		t.Fatal("claude was restarted after an interrupt")
	}
	if body := lastBody(t, f); !bytes.Contains(body, []byte("slow answer please")) {
		t.Fatalf("the interrupted prompt is not in the next request:\n%s", body)
	}
}

func TestInterruptKillsTheRunningTool(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	ch, stop := f.h.Subscribe(256)
	defer stop()
	cancelled := make(chan time.Time, 1)
	go func() {
		for n := range ch {
			for _, e := range n.Events {
				if e.Type == harness.TypeToolStarted {
					time.Sleep(300 * time.Millisecond)
					cancelled <- time.Now()
					cancel()
					return
				}
			}
		}
	}()
	res, err := x.Prompt(ctx, f.s.ID, "sleep a while", "test")
	if err != nil || !res.Cancelled {
		t.Fatalf("interrupted turn: %v %+v", err, res)
	}
	// Measured from the interrupt, not from the start: claude's own start-up under a loaded
	// machine is not what this test is about.
	if took := time.Since(<-cancelled); took > 10*time.Second {
		t.Fatalf("the interrupt took %s", took)
	}
	evs := f.events(t, f.s.ID)
	tc := exectest.Payloads[harness.ToolCompleted](t, evs, harness.TypeToolCompleted)
	if len(tc) != 1 || tc[0].Killed == "" {
		t.Fatalf("the sleeping command was not killed: %+v", tc)
	}
	if !strings.HasSuffix(exectest.Types(evs), "turn.cancelled") {
		t.Fatalf("events %s", exectest.Types(evs))
	}
}

func TestClaudeDyingMidTurnLosesNothing(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{})
	go func() {
		<-f.srv.Hanging()
		syscall.Kill(pid(x, f.s.ID), syscall.SIGKILL)
	}()
	res, err := x.Prompt(context.Background(), f.s.ID, "slow answer please", "test")
	if err != nil || res.Failure == "" || !strings.Contains(res.Failure, "claude-code exited") {
		t.Fatalf("turn with a dead claude: %v %+v", err, res)
	}
	evs := f.events(t, f.s.ID)
	fails := exectest.Payloads[harness.ExecutorFailed](t, evs, harness.TypeExecutorFailed)
	if len(fails) != 1 || fails[0].Signal != "killed" {
		t.Fatalf("executor.failed %+v (events %s)", fails, exectest.Types(evs))
	}
	if st, _ := f.h.State(f.s.ID); st.Status != harness.StatusFailed || st.ModelInFlight != 0 {
		t.Fatalf("state %+v", st)
	}
	res, err = x.Prompt(context.Background(), f.s.ID, "say hello", "test")
	okResult(t, res, err)
	if body := lastBody(t, f); !bytes.Contains(body, []byte("slow answer please")) || !bytes.Contains(body, []byte("say hello")) {
		t.Fatalf("the next claude does not know the prompt the dead one had:\n%s", body)
	}
}
