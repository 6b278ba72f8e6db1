package pumptest

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"exo/harness/extexec"
)

// Pump is a pump on a peer, as KillMidRequest drives it.
type Pump struct {
	Proc *extexec.Process
	// Call sends the peer one request (a method of this package) and waits for its reply.
	Call func(method string) error
	// Ready and Take are the pump's: Take says how many messages were queued and whether the
	// pump is closed.
	Ready <-chan struct{}
	Take  func() (n int, closed bool)
	// Asked and Ended are told when exo's answer to the peer's request (Ask) starts, and when
	// it has seen its context end.
	Asked, Ended <-chan string
	// Agent names the agent in the waiters' errors.
	Agent string
}

// KillMidRequest kills the peer start returns with SIGKILL while exo waits on three requests
// and answers one of the peer's, and checks that every waiter gets an error naming the agent and
// the signal, that the answer being computed sees its context end, that the pump closes with
// nothing queued, and that no goroutine is left (the test must not run in parallel).
func KillMidRequest(t *testing.T, start func() Pump) {
	t.Helper()
	before := runtime.NumGoroutine()
	p := start()
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	call := func(m string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- p.Call(m)
		}()
	}
	for range 3 {
		call(Hang)
	}
	for hanging := 0; hanging < 3; { // each Hang is read before Ask
		<-p.Ready
		n, _ := p.Take()
		hanging += n
	}
	call(Ask)
	<-p.Asked
	syscall.Kill(p.Proc.Pid(), syscall.SIGKILL)
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, extexec.ErrAgentGone) || !strings.Contains(err.Error(), p.Agent+" exited before answering") || !strings.Contains(err.Error(), "killed by signal killed") {
			t.Fatalf("a waiter got %v", err)
		}
	}
	select {
	case <-p.Ended:
	case <-time.After(time.Minute):
		t.Fatal("the answer to the killed agent's request was not cancelled")
	}
	<-p.Proc.Done()
	if n, closed := p.Take(); n != 0 || !closed {
		t.Fatalf("after the kill: %d messages, closed %v", n, closed)
	}
	if err := p.Call(Echo); !errors.Is(err, extexec.ErrAgentGone) {
		t.Fatalf("a call after the kill: %v", err)
	}
	deadline := time.Now().Add(time.Minute)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
