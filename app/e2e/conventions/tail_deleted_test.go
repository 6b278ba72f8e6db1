package conventions

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer a process writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns what was written so far.
func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestTailEndsWhenSessionDeleted: exo tail follows a session that another client then removes;
// the tail prints the deletion, says so and exits 0 instead of waiting for good.
func TestTailEndsWhenSessionDeleted(t *testing.T) {
	u := newUser(t)
	u.must("new", "--name", "s")
	u.must("say", "s", "hello")
	cmd := exec.Command(exoBin, "tail", "s")
	cmd.Dir, cmd.Env = u.project, append(os.Environ(), u.env...)
	var out, errb lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	u.must("say", "s", "while tailing")
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(out.String(), "while tailing"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("exo tail never showed the new event:\n%s\n%s", out.String(), errb.String())
		}
	}
	u.must("session", "rm", "--yes", "s")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exo tail: %v\n%s", err, errb.String())
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("exo tail still follows a deleted session:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "session.deleted") || !strings.Contains(errb.String(), "was deleted") {
		t.Fatalf("exo tail's output:\n%s\n%s", out.String(), errb.String())
	}
}
