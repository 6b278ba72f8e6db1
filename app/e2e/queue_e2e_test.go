package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// slowTurnScript answers every prompt after three seconds: a turn that runs long enough to
// send follow-ups into.
const slowTurnScript = `name: slow
first_token: 3s
turns:
  - text: answered
`

// TestFollowUpsWhileATurnRuns sends follow-ups while a turn runs, in the real app in tmux:
// enter queues one (listed as queued in the prompt pane), ctrl+s queues one to steer, and
// `exo say` from another terminal queues one too (shown in the app from the projection); each
// is sent in order when the turn before it ends, and the log records it all.
func TestFollowUpsWhileATurnRuns(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	script := filepath.Join(t.TempDir(), "slow.yaml")
	if err := os.WriteFile(script, []byte(slowTurnScript), 0o644); err != nil {
		t.Fatal(err)
	}
	cli := func(args ...string) (string, string) {
		t.Helper()
		out, errs, code := exoEnv(t, home, ws, nil, args...)
		if code != 0 {
			t.Fatalf("exo %v: exit %d: %s", args, code, errs)
		}
		return out, errs
	}
	cli("model", "register", "slow", "--provider", "scripted", "--base-url", script)
	cli("new", "--name", "follow")
	app := "cd " + ws + " && EXO_HOME=" + home + " " + exoBin + " attach follow --theme dark; sleep 60"
	s := startTmux(t, 120, 36, app)
	s.waitFor("the session loaded", contains(" follow │"))
	s.keys("first question", "Enter")
	s.waitFor("the turn running (the hint says enter queues)", contains("enter queue"))
	s.keys("and a follow-up", "Enter")
	s.waitFor("the queued prompt", contains("⏸ queued  and a follow-up"))
	s.keys("steer this way", "C-s")
	s.waitFor("the prompt queued to steer", contains("↪ steer   steer this way"))
	if _, errs := cli("say", "follow", "from the cli"); !strings.Contains(errs, "queued") {
		t.Fatalf("exo say while a turn runs: %s", errs)
	}
	s.waitFor("the message exo say queued, in the app", contains("⏸ queued  from the cli"))
	s.waitFor("every queued prompt sent", func(sc string) bool {
		return !strings.Contains(sc, "⏸ queued") && !strings.Contains(sc, "↪ steer") && strings.Count(sc, "answered") >= 4
	})
	log, _ := cli("log", "follow")
	for _, want := range []string{"queued: and a follow-up", "queued to steer: steer this way", "queued: from the cli"} {
		if !strings.Contains(log, want) {
			t.Fatalf("the log lacks %q:\n%s", want, log)
		}
	}
	if n := strings.Count(log, "unqueued (sent)"); n != 3 {
		t.Fatalf("%d prompts sent from the queue, want 3:\n%s", n, log)
	}
}
