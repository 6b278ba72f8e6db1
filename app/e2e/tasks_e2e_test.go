package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestBackgroundExecOutlivesTheCLI starts background commands with exo exec --background, reads
// their output with exo task out, kills one, and checks the completions land in the session log.
func TestBackgroundExecOutlivesTheCLI(t *testing.T) {
	t.Parallel()
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
	checkTaskJSON(t, home, ws, long, "running", nil)
	exit3 := 3
	checkTaskJSON(t, home, ws, id, "exited", &exit3)
	if _, errs, code := exoEnv(t, home, ws, nil, "task", "kill", long); code != 0 {
		t.Fatal(errs)
	}
	waitTask(t, home, ws, long, "killed")
}

// checkTaskJSON finds a task in exo task ls --json and checks its state and exit code (none
// and no end time while it runs: the record's exit 0 and zero time are not shown).
func checkTaskJSON(t *testing.T, home, ws, id, state string, exit *int) {
	t.Helper()
	out, errs, code := exoEnv(t, home, ws, nil, "task", "ls", "--json")
	var ts []map[string]any
	if err := json.Unmarshal([]byte(out), &ts); err != nil || code != 0 {
		t.Fatalf("task ls --json: %v %s\n%s", err, errs, out)
	}
	for _, tk := range ts {
		if tk["id"] != id {
			continue
		}
		_, ended := tk["ended"]
		if tk["state"] != state || (exit == nil) != (tk["exit_code"] == nil) || (exit == nil) == ended {
			t.Fatalf("task %s: %v, want state %s exit %v", id, tk, state, exit)
		}
		if exit != nil && tk["exit_code"] != float64(*exit) {
			t.Fatalf("task %s: exit %v, want %d", id, tk["exit_code"], *exit)
		}
		return
	}
	t.Fatalf("task %s not listed:\n%s", id, out)
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
