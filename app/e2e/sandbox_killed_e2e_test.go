package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSandboxPaneAfterTheDaemonIsKilled: a bash call runs in the app's session when the daemon
// is killed with SIGKILL; the app starts a new daemon, which records the call as interrupted,
// and the Sandbox pane says so instead of keeping its "running" spinner for good.
func TestSandboxPaneAfterTheDaemonIsKilled(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	script := filepath.Join(t.TempDir(), "sleepy.yaml")
	if err := os.WriteFile(script, []byte(`name: sleepy
turns:
  - text: "Waiting a while."
    tool_calls:
      - name: bash
        args: {command: "sleep 300", timeout_s: 600}
  - text: "Done."
`), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRunIn(t, home, ws, "model", "register", "sleepy", "--provider", "scripted", "--base-url", script)
	mustRunIn(t, home, ws, "new", "--name", "sleeper")
	scr := startTmux(t, 140, 40, "cd "+ws+" && EXO_HOME="+home+" "+exoBin+" attach sleeper --theme dark; sleep 60")
	scr.waitFor("the session loaded", contains(" sleeper │"))
	scr.keys("wait for me", "Enter")
	scr.waitFor("the command running in the sandbox pane", func(s string) bool {
		return strings.Contains(s, "$ sleep 300") && strings.Contains(s, "running")
	})
	old := theDaemon(t, home)
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// "reconnected to the exo daemon" is said first and at once replaced, when the activity
	// read after the reconnection names another daemon, by what happened; the frame that
	// would show the first may never be drawn.
	scr.waitFor("the app reconnected to a new daemon", func(s string) bool {
		return strings.Contains(s, "reconnected to the exo daemon") || strings.Contains(s, "exo started a new one")
	})
	scr.waitFor("the sandbox pane following the log", func(s string) bool {
		return strings.Contains(s, "✗ interrupted") && !strings.Contains(s, "running")
	})
	if log := mustRunIn(t, home, ws, "log", "sleeper"); !strings.Contains(log, "exo stopped before this call finished") {
		t.Fatalf("the log does not record the call as interrupted:\n%s", log)
	}
	scr.keys("C-q")
}
