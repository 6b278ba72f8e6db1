package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPendingApprovalIsNeverLost runs a turn under the ask mode in the real app and follows its
// approvals through every window: ctrl+q then esc in the app that asked closes the quit question
// only (the approval shows again; it used to close both and leave the session waiting for
// good); a second app attached after the question was asked shows it too; `exo approve` lists it
// and answers it from the command line, and both apps close their dialog; the turn's next
// question shows in both apps and is answered from one of them.
func TestPendingApprovalIsNeverLost(t *testing.T) {
	t.Parallel()
	home, ws, cfg := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfg, "exo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "exo", "config.toml"), []byte("approval = \"ask\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_CONFIG_HOME=" + cfg}
	cli := func(args ...string) string {
		t.Helper()
		out, errs, code := exoEnv(t, home, ws, env, args...)
		if code != 0 {
			t.Fatalf("exo %v: exit %d: %s", args, code, errs)
		}
		return out
	}
	cli("model", "register", "demo", "--provider", "scripted")
	cli("new", "--name", "asker")
	app := "cd " + ws + " && XDG_CONFIG_HOME=" + cfg + " EXO_HOME=" + home + " " + exoBin + " attach asker --theme dark; sleep 60"
	first := startTmux(t, 160, 48, app)
	first.waitFor("the session loaded", contains(" asker │"))
	first.keys("write me a hello script", "Enter")
	asked := func(s string) bool {
		return strings.Contains(s, "y approve once") && !strings.Contains(s, "Leave exo?")
	}
	first.waitFor("the approval of the write", asked)

	first.keys("C-q")
	first.waitFor("the quit question", contains("Leave exo?"))
	first.keys("Escape")
	first.waitFor("the approval again after the quit question", asked)

	second := startTmux(t, 120, 36, app)
	second.waitFor("the approval in an app attached after it was asked", asked)

	list := cli("approve", "asker")
	if !strings.Contains(list, "write_file") || !strings.Contains(list, "hello.py") || !strings.Contains(list, "exo approve asker CALL") {
		t.Fatalf("exo approve does not list the waiting write:\n%s", list)
	}
	if out := cli("approve", "asker", "--allow"); !strings.Contains(out, "allowed once") {
		t.Fatalf("exo approve --allow says:\n%s", out)
	}
	for _, s := range []*tmuxScreen{first, second} {
		s.waitFor("the dialog closed by the command line's answer", contains("approval answered: once"))
	}
	if _, err := os.Stat(filepath.Join(ws, "hello.py")); err != nil {
		t.Fatalf("the allowed write did not run: %v", err)
	}

	// The demo's next step runs a command: asked again, in both apps.
	first.waitFor("the command's approval", asked)
	second.waitFor("the command's approval in the second app", asked)
	second.keys("n")
	first.waitFor("the first app told of the second's answer", contains("approval answered: deny"))
	if out := cli("approve", "asker"); !strings.Contains(out, "no approval waits in asker") {
		t.Fatalf("an answered approval still waits:\n%s", out)
	}
	if _, errs, code := exoEnv(t, home, ws, env, "approve", "asker", "--deny"); code != 1 || !strings.Contains(errs, "no approval waits in asker") {
		t.Fatalf("answering when nothing waits: exit %d: %s", code, errs)
	}
}
