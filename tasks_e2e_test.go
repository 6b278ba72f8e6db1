package main

import (
	"strings"
	"testing"
	"time"
)

// TestBackgroundExecOutlivesTheCLI starts background commands with exo exec --background, reads
// their output with exo task out, kills one, and checks the completions land in the session log.
func TestBackgroundExecOutlivesTheCLI(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	exoEnv(t, home, ws, nil, "new", "--name", "bg")
	id, errs, code := exoEnv(t, home, ws, nil, "exec", "bg", "--background", "--", "echo one; sleep 0.2; echo two; exit 3")
	if code != 0 {
		t.Fatal(errs)
	}
	id = strings.TrimSpace(id)
	waitTask(t, home, ws, id, "exited")
	out, _, _ := exoEnv(t, home, ws, nil, "task", "out", id)
	if out != "one\r\ntwo\r\n" && out != "one\ntwo\n" {
		t.Fatalf("output %q", out)
	}
	log, _, _ := exoEnv(t, home, ws, nil, "log", "bg")
	if !strings.Contains(log, "task.completed") || !strings.Contains(log, id+" exit 3") {
		t.Fatalf("completion not recorded:\n%s", log)
	}
	long, _, _ := exoEnv(t, home, ws, nil, "exec", "bg", "--background", "--", "sleep 60")
	long = strings.TrimSpace(long)
	waitTask(t, home, ws, long, "running")
	if _, errs, code := exoEnv(t, home, ws, nil, "task", "kill", long); code != 0 {
		t.Fatal(errs)
	}
	waitTask(t, home, ws, long, "killed")
}

// waitTask polls exo task ls until the task is in state.
func waitTask(t *testing.T, home, ws, id, state string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		out, _, _ := exoEnv(t, home, ws, nil, "task", "ls")
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 1 && f[0] == id && f[1] == state {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s never became %s:\n%s", id, state, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
