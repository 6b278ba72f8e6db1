package runtimes

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/harness/api"
	"exo/harness/sessions"
)

// TestDetachedTaskLeavesNoSecretOnDisk: a detached task whose command and output hold a sealed
// secret's value (the user typed it) keeps them raw on disk only while it runs: once its end is
// recorded, no file under EXO_HOME/tasks holds the value, the listing shows the command
// redacted, and its output is still there, redacted, for exo task output.
func TestDetachedTaskLeavesNoSecretOnDisk(t *testing.T) {
	h := openTest(t)
	s, err := h.NewSession(sessions.NewSessionOptions{Name: "det", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	const secret = "sk-detached-Qw83-sealed-value"
	if err := h.SetSecret("tok", []byte(secret)); err != nil {
		t.Fatal(err)
	}
	task, err := h.StartDetached(s.ID, "echo before; echo "+secret+"; echo after", os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	tasksDir := filepath.Join(h.Home(), "tasks")
	holds := func() []string {
		var out []string
		filepath.WalkDir(tasksDir, func(p string, e fs.DirEntry, err error) error {
			if err == nil && e.Type().IsRegular() {
				if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(secret)) {
					out = append(out, p)
				}
			}
			return nil
		})
		return out
	}
	var listed api.DetachedTask
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		ts, err := h.DetachedTasks()
		if err != nil {
			t.Fatal(err)
		}
		if len(ts) == 1 && ts[0].Recorded {
			listed = ts[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the task's end was never recorded: %+v", ts)
		}
	}
	if held := holds(); len(held) > 0 {
		t.Fatalf("after the task ended the secret stays on disk in %v", held)
	}
	if strings.Contains(listed.Command, secret) || !strings.Contains(listed.Command, "‹secret:tok›") {
		t.Fatalf("listed command: %q", listed.Command)
	}
	var out bytes.Buffer
	if err := h.DetachedOutput(task.ID, &out); err != nil {
		t.Fatal(err)
	}
	if o := out.String(); !strings.Contains(o, "before") || !strings.Contains(o, "after") || !strings.Contains(o, "‹secret:tok›") || strings.Contains(o, secret) {
		t.Fatalf("output after the end: %q", o)
	}
}
