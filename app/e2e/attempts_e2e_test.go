package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"exo/harness/api"
)

// writeScript writes a scripted model's script and registers it as a model.
func registerScript(t *testing.T, home, ws, name, script string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), name+".yaml")
	if err := os.WriteFile(p, []byte("name: "+name+"\n"+script), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRunIn(t, home, ws, "model", "register", name, "--provider", "scripted", "--base-url", p)
}

// gitWorkspace makes a folder holding a git repository with one commit.
func gitWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.email=e@x", "-c", "user.name=e", "commit", "-qm", "start"}} {
		if args[0] == "add" {
			if err := os.WriteFile(filepath.Join(ws, "answer.txt"), []byte("unknown\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return ws
}

// TestAttemptsScoredAndKept: three attempts at one prompt, each with another scripted model:
// one writes the right answer, one a wrong one (its check fails), one's model fails. The
// failing one never stops the others; the scoreboard (from the log) says which did what, and
// survives a restart of the daemon; keeping the good attempt gives the original session its
// history and files, and archives the others in the same step.
func TestAttemptsScoredAndKept(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), gitWorkspace(t)
	registerScript(t, home, ws, "good", `turns:
  - text: "Writing it."
    tool_calls:
      - name: write_file
        args: {path: "answer.txt", content: "42\n"}
  - text: "The answer is 42."
`)
	registerScript(t, home, ws, "wrong", `turns:
  - text: "Writing it."
    tool_calls:
      - name: write_file
        args: {path: "answer.txt", content: "41\n"}
      - name: write_file
        args: {path: "notes.txt", content: "guessed\n"}
  - text: "The answer is 41."
`)
	registerScript(t, home, ws, "broken", `turns:
  - fail: server
`)
	mustRunIn(t, home, ws, "new", "--name", "quest")
	mustRunIn(t, home, ws, "say", "quest", "the answer goes in answer.txt")
	out, errs, code := exoEnv(t, home, ws, nil, "attempts", "quest@2", "--model", "good,wrong,broken",
		"--check", "grep -qx 42 answer.txt", "--yes", "--json", "write the answer")
	if code != 0 {
		t.Fatalf("exo attempts: exit %d\n%s\n%s", code, out, errs)
	}
	var set api.AttemptSet
	if err := json.Unmarshal([]byte(out), &set); err != nil {
		t.Fatalf("exo attempts --json: %v\n%s", err, out)
	}
	if len(set.Rows) != 3 || set.AtSeq != 2 || set.Prompt != "write the answer" {
		t.Fatalf("the set: %+v", set)
	}
	good, wrong, broken := set.Rows[0], set.Rows[1], set.Rows[2]
	if good.Model != "good" || good.Status != api.AttemptDone || good.CheckText() != "pass" || strings.Join(good.Files, ",") != "answer.txt" || good.Steps != 2 || good.ToolCalls != 1 || good.Tokens == 0 {
		t.Errorf("the good attempt: %+v", good)
	}
	if wrong.Status != api.AttemptDone || wrong.CheckText() != "fail 1" || strings.Join(wrong.Files, ",") != "answer.txt,notes.txt" || wrong.ToolCalls != 2 || wrong.Check.Artifact == "" {
		t.Errorf("the wrong attempt: %+v", wrong)
	}
	if broken.Status != api.AttemptFailed || broken.Reason == "" {
		t.Errorf("the broken attempt: %+v", broken)
	}
	// The scoreboard is a projection of the log: the same after the daemon restarts.
	mustRunIn(t, home, ws, "daemon", "stop")
	var again api.AttemptSet
	if err := json.Unmarshal([]byte(mustRunIn(t, home, ws, "attempts", "show", set.ID, "--json", "--sort", "check")), &again); err != nil {
		t.Fatal(err)
	}
	if len(again.Rows) != 3 || again.Rows[0].Session != good.Session || again.Rows[0].CheckText() != "pass" || again.Rows[2].Status != api.AttemptFailed {
		t.Fatalf("the scoreboard after a restart, sorted by check: %+v", again.Rows)
	}
	if _, errs, code := exoEnv(t, home, ws, nil, "attempts", "show", set.ID, "--sort", "bogus"); code != 2 || !strings.Contains(errs, "give one of") {
		t.Fatalf("a bad sort column: exit %d %s", code, errs)
	}
	diff := mustRunIn(t, home, ws, "attempts", "diff", good.Name, wrong.Name)
	if !strings.Contains(diff, "-42") || !strings.Contains(diff, "+41") || !strings.Contains(diff, "+guessed") {
		t.Fatalf("the diff between two attempts:\n%s", diff)
	}
	// The original's files are untouched until one attempt is kept.
	if b, _ := os.ReadFile(filepath.Join(ws, "answer.txt")); string(b) != "unknown\n" {
		t.Fatalf("the attempts changed the original's files: %q", b)
	}
	mustRunIn(t, home, ws, "attempts", "keep", good.Name, "--archive")
	if b, _ := os.ReadFile(filepath.Join(ws, "answer.txt")); string(b) != "42\n" {
		t.Fatalf("keep did not bring the attempt's files: %q", b)
	}
	log := mustRunIn(t, home, ws, "log", "quest")
	if !strings.Contains(log, "attempt.kept") || !strings.Contains(log, "The answer is 42.") {
		t.Fatalf("the original's history is not the kept attempt's:\n%s", log)
	}
	if v := mustRunIn(t, home, ws, "verify", "quest"); !strings.Contains(v, "ok") {
		t.Fatalf("verify after keep: %s", v)
	}
	sessions := mustRunIn(t, home, ws, "sessions")
	if strings.Contains(sessions, wrong.Name) || strings.Contains(sessions, broken.Name) || !strings.Contains(mustRunIn(t, home, ws, "sessions", "--all"), wrong.Name) {
		t.Fatalf("the others are not archived (and kept):\n%s", sessions)
	}
	var kept api.AttemptSet
	if err := json.Unmarshal([]byte(mustRunIn(t, home, ws, "attempts", "show", "quest", "--json")), &kept); err != nil || kept.Kept != good.Session {
		t.Fatalf("the scoreboard does not say which was kept: %v %+v", err, kept)
	}
}

// TestAttemptsWhenTheDaemonIsKilled: three attempts run commands when the daemon is killed
// with SIGKILL; the next daemon records each as interrupted and the scoreboard says so.
func TestAttemptsWhenTheDaemonIsKilled(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), gitWorkspace(t)
	for _, n := range []string{"slow1", "slow2", "slow3"} {
		registerScript(t, home, ws, n, `turns:
  - text: "Thinking hard."
    tool_calls:
      - name: bash
        args: {command: "sleep 300", timeout_s: 600}
  - text: "Done."
`)
	}
	mustRunIn(t, home, ws, "new", "--name", "doomed")
	id := strings.TrimSpace(mustRunIn(t, home, ws, "attempts", "doomed", "--model", "slow1,slow2,slow3", "--yes", "--detach", "take your time"))
	deadline := time.Now().Add(time.Minute)
	for {
		var set api.AttemptSet
		if err := json.Unmarshal([]byte(mustRunIn(t, home, ws, "attempts", "show", id, "--json")), &set); err != nil {
			t.Fatal(err)
		}
		started := 0
		for _, r := range set.Rows {
			if r.ToolCalls == 1 && r.Status == api.AttemptRunning {
				started++
			}
		}
		if started == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the three attempts never all ran their command: %+v", set.Rows)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A child the daemon forks shows the daemon's command line until it execs: look again.
	pids := daemonPids(t, home)
	for len(pids) != 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		pids = daemonPids(t, home)
	}
	if len(pids) != 1 {
		t.Fatalf("want one daemon, found %v", pids)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var set api.AttemptSet
	if err := json.Unmarshal([]byte(mustRunIn(t, home, ws, "attempts", "show", id, "--json")), &set); err != nil {
		t.Fatal(err)
	}
	for _, r := range set.Rows {
		if r.Status != api.AttemptInterrupted || !strings.Contains(r.Reason, "exo stopped") {
			t.Errorf("attempt %s after the kill: %s %q", r.Name, r.Status, r.Reason)
		}
		if log := mustRunIn(t, home, ws, "log", r.Name); !strings.Contains(log, "turn.interrupted") || !strings.Contains(log, "attempt.ended") {
			t.Errorf("attempt %s's log does not record the interruption:\n%s", r.Name, log)
		}
	}
	if v := mustRunIn(t, home, ws, "verify"); !strings.Contains(v, "ok") {
		t.Fatalf("verify after the kill: %s", v)
	}
}

// TestReplayAgainstTheOriginal: a session's two recorded prompts re-run under another model in
// a fork from its start, turn by turn; the scoreboard has the original run as its first row.
func TestReplayAgainstTheOriginal(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), gitWorkspace(t)
	registerScript(t, home, ws, "first", `turns:
  - text: "Writing it."
    tool_calls:
      - name: write_file
        args: {path: "answer.txt", content: "41\n"}
  - text: "Wrote 41."
`)
	registerScript(t, home, ws, "second", `turns:
  - text: "Writing it."
    tool_calls:
      - name: write_file
        args: {path: "answer.txt", content: "42\n"}
  - text: "Wrote 42."
`)
	mustRunIn(t, home, ws, "new", "--name", "recorded")
	mustRunIn(t, home, ws, "run", "--session", "recorded", "--model", "first", "--yes", "write the answer")
	mustRunIn(t, home, ws, "run", "--session", "recorded", "--yes", "check it again")
	out, errs, code := exoEnv(t, home, ws, nil, "replay", "recorded", "--model", "second", "--check", "grep -qx 42 answer.txt", "--yes", "--json")
	if code != 0 {
		t.Fatalf("exo replay: exit %d\n%s\n%s", code, out, errs)
	}
	var set api.AttemptSet
	if err := json.Unmarshal([]byte(out), &set); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !set.Replay || set.Original == nil || len(set.Rows) != 1 {
		t.Fatalf("the replay's set: %+v", set)
	}
	orig, re := *set.Original, set.Rows[0]
	if orig.Steps != 4 || orig.ToolCalls != 2 || re.Steps != 4 || re.ToolCalls != 2 || re.Model != "second" || re.CheckText() != "pass" {
		t.Fatalf("original %+v\nreplay %+v", orig, re)
	}
	log := mustRunIn(t, home, ws, "log", re.Name)
	if !strings.Contains(log, "write the answer") || strings.Index(log, "check it again") < strings.Index(log, "Wrote 42.") {
		t.Fatalf("the prompts were not replayed turn by turn:\n%s", log)
	}
}

// TestAttemptsRefusals: too many attempts, an unknown model, an event past the head, an empty
// prompt and an unknown set are usage errors (exit 2) that fork nothing.
func TestAttemptsRefusals(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), gitWorkspace(t)
	mustRunIn(t, home, ws, "model", "register", "demo", "--provider", "scripted")
	mustRunIn(t, home, ws, "new", "--name", "plain")
	many := strings.Repeat("demo,", 17)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"attempts", "plain", "--model", many, "hi"}, "at most 16"},
		{[]string{"attempts", "plain", "--model", "demo,nosuch", "hi"}, "nosuch"},
		{[]string{"attempts", "plain@99", "--model", "demo", "hi"}, "past the head"},
		{[]string{"attempts", "plain", "--model", "demo", " "}, "empty"},
		{[]string{"attempts", "show", "att-0000000000"}, "not found"},
		{[]string{"attempts", "keep", "plain"}, "no attempt"},
		{[]string{"attempts", "plain", "--model", "demo", "--budget-tokens", "lots", "hi"}, "token budget"},
	} {
		out, errs, code := exoEnv(t, home, ws, nil, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("exo %v: exit %d, want 2 saying %q:\n%s%s", c.args, code, c.want, out, errs)
		}
	}
	if s := mustRunIn(t, home, ws, "sessions"); strings.Count(s, "plain") != 1 {
		t.Fatalf("a refused set forked sessions:\n%s", s)
	}
}

// TestAttemptsBudgets: the set's token budget stops every attempt still running once the set
// spent it, and an attempt's time budget stops it; both read "budget" on the scoreboard.
func TestAttemptsBudgets(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), gitWorkspace(t)
	registerScript(t, home, ws, "slow", `turns:
  - text: "Waiting."
    tool_calls:
      - name: bash
        args: {command: "sleep 300", timeout_s: 600}
  - text: "Done."
`)
	mustRunIn(t, home, ws, "new", "--name", "thrift")
	for _, args := range [][]string{
		{"--model", "slow,slow", "--set-budget-tokens", "100"},
		{"--model", "slow", "--timeout", "1s"},
	} {
		out, errs, code := exoEnv(t, home, ws, nil, append(append([]string{"attempts", "thrift"}, args...), "--yes", "--json", "go")...)
		if code != 1 {
			t.Fatalf("exo attempts %v: exit %d, want 1 (no attempt succeeded)\n%s%s", args, code, out, errs)
		}
		var set api.AttemptSet
		if err := json.Unmarshal([]byte(out), &set); err != nil {
			t.Fatal(err)
		}
		for _, r := range set.Rows {
			if r.Status != api.AttemptOverBudget || r.Reason == "" {
				t.Errorf("exo attempts %v: %s ended %s %q", args, r.Name, r.Status, r.Reason)
			}
		}
	}
}
