package hooks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/trust"
)

// stopJSON is a hook answer with continue:false (and a decision it overrides).
const stopJSON = `cat >/dev/null; echo '{"continue":false,"stopReason":"frozen for the release","decision":"block","reason":"not this"}'`

// runsOf lists the hook.run events as "Event/Matcher/Decision".
func runsOf(t *testing.T, r *rig) []string {
	var out []string
	for _, run := range decoded[harness.HookRun](t, r.h, r.s.ID, harness.TypeHookRun) {
		out = append(out, run.Event+"/"+run.Matcher+"/"+run.Decision)
	}
	return out
}

// cancelledBy returns the turn.cancelled events.
func cancelledBy(t *testing.T, r *rig) []*harness.TurnCancelled {
	return decoded[harness.TurnCancelled](t, r.h, r.s.ID, harness.TypeTurnCancelled)
}

// PreToolUse continue:false stops the agent, as Claude Code does (not just a denied call): the
// call and the calls after it do not run, the model is not called again, the user sees the
// stopReason in turn.cancelled, and the model on its next turn only learns that a hook stopped it.
func TestPreToolUseContinueFalseStopsTheAgent(t *testing.T) {
	r := newRig(t, map[string][]Group{PreToolUse: {{Matcher: "Bash", Hooks: []Hook{{Command: stopJSON}}}}}, `
name: stop
turns:
  - tool_calls:
      - name: bash
        args: {command: "echo ran > ran.txt"}
      - name: write_file
        args: {path: second.txt, content: "x"}
  - text: Should not be reached.
`)
	res := r.prompt(t, "go")
	if !res.Cancelled || res.Steps != 1 {
		t.Fatalf("result %+v %v %v", res, runsOf(t, r), results(t, r, "bash"))
	}
	for _, f := range []string{"ran.txt", "second.txt"} {
		if _, err := os.Stat(filepath.Join(r.ws, f)); err == nil {
			t.Fatalf("%s was written after the hook stopped the agent", f)
		}
	}
	c := cancelledBy(t, r)
	if len(c) != 1 || c[0].Hook != PreToolUse || !strings.Contains(c[0].Reason, "frozen for the release") {
		t.Fatalf("turn.cancelled %+v", c)
	}
	if got := strings.Join(runsOf(t, r), " "); got != "PreToolUse/Bash/stop" {
		t.Fatalf("hook runs %s", got)
	}
	for _, tc := range decoded[harness.ToolCompleted](t, r.h, r.s.ID, harness.TypeToolCompleted) {
		if !tc.IsError || tc.Output != "not run: a PreToolUse hook of the user's stopped the turn" {
			t.Fatalf("tool result %+v", tc)
		}
	}
	x := executor.New(r.h, executor.Options{Headless: true})
	v, err := x.ViewOf(r.s.Branch, "")
	if err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	for _, m := range v.Messages {
		seen.WriteString(m.Text)
	}
	if strings.Contains(seen.String(), "frozen for the release") || !strings.Contains(seen.String(), "a PreToolUse hook of the user's stopped the previous turn") {
		t.Fatalf("the model's view after the stop:\n%s", seen.String())
	}
}

// PostToolUse continue:false lets the call's result stand and ends the turn after it.
func TestPostToolUseContinueFalseEndsTheTurnAfterTheCall(t *testing.T) {
	r := newRig(t, map[string][]Group{PostToolUse: {{Matcher: "bash", Hooks: []Hook{{Command: stopJSON}}}}}, `
name: post
turns:
  - tool_calls:
      - name: bash
        args: {command: "echo ran > ran.txt"}
      - name: bash
        args: {command: "echo again > again.txt"}
  - text: Should not be reached.
`)
	res := r.prompt(t, "go")
	if !res.Cancelled || res.Steps != 1 {
		t.Fatalf("result %+v", res)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "ran.txt")); err != nil {
		t.Fatal("the call before the stop did not run")
	}
	if _, err := os.Stat(filepath.Join(r.ws, "again.txt")); err == nil {
		t.Fatal("a call after the stop ran")
	}
	if c := cancelledBy(t, r); len(c) != 1 || c[0].Hook != PostToolUse {
		t.Fatalf("turn.cancelled %+v", c)
	}
}

// A Stop hook's continue:false wins over its own decision:block: the turn ends instead of going
// on; UserPromptSubmit's refuses the prompt with the stopReason.
func TestStopAndPromptContinueFalse(t *testing.T) {
	r := newRig(t, map[string][]Group{Stop: cmdHook(stopJSON, 0)}, "name: s\nturns:\n  - text: All done.\n")
	res := r.prompt(t, "finish")
	if res.Failure != "" || res.Cancelled || res.Response != "All done." {
		t.Fatalf("result %+v", res)
	}
	for _, inv := range decoded[harness.InvocationReceived](t, r.h, r.s.ID, harness.TypeInvocationReceived) {
		if inv.Source == "hook" {
			t.Fatalf("the Stop hook's continue:false sent the model back to work: %+v", inv)
		}
	}
	writeSettings(t, r.ws, map[string][]Group{UserPromptSubmit: cmdHook(stopJSON, 0)})
	if res := r.prompt(t, "again"); !strings.Contains(res.Failure, "frozen for the release") {
		t.Fatalf("prompt result %+v", res)
	}
}

// SessionStart matchers select by source, as Claude Code's do: startup for a new session,
// resume for one with history (a new process), compact after its history was summarised; a
// PreCompact hook runs before a summary with trigger auto or manual, selected by its matcher.
func TestSessionStartAndPreCompactMatchers(t *testing.T) {
	echo := func(s string) []Hook { return []Hook{{Command: "cat >/dev/null; echo " + s}} }
	r := newRig(t, map[string][]Group{
		SessionStart: {{Matcher: "startup", Hooks: echo("fresh")}, {Matcher: "resume", Hooks: echo("welcome-back")},
			{Matcher: "compact", Hooks: echo("after-compaction")}, {Matcher: "clear", Hooks: echo("never")}},
		PreCompact: {{Matcher: "auto", Hooks: echo("auto-compact")}, {Matcher: "manual", Hooks: echo("manual-compact")}},
	}, "name: x\nturns:\n  - text: hi\n")
	smallModel(t, r)
	run := func(x *executor.Executor) {
		t.Helper()
		if res, err := x.Prompt(context.Background(), r.s.ID, "read big.log again", "test"); err != nil || res.Failure != "" {
			t.Fatalf("%+v %v", res, err)
		}
	}
	run(executor.New(r.h, executor.Options{Headless: true, Hooks: r.r}))
	if got := strings.Join(runsOf(t, r), " "); got != "SessionStart/startup/context" {
		t.Fatalf("first turn's hooks: %s", got)
	}
	// Another process: the session has history, so it resumes.
	x := executor.New(r.h, executor.Options{Headless: true, Hooks: r.r})
	for i := 0; i < 40 && !strings.Contains(strings.Join(runsOf(t, r), " "), "PreCompact"); i++ {
		run(x)
	}
	got := strings.Join(runsOf(t, r), " ")
	if !strings.Contains(got, "SessionStart/resume/context PreCompact/auto/") || strings.Contains(got, "manual") || strings.Contains(got, "clear") {
		t.Fatalf("hooks before and at the automatic compaction: %s", got)
	}
	run(x)
	if got := strings.Join(runsOf(t, r), " "); !strings.HasSuffix(got, "SessionStart/compact/context") && !strings.Contains(got, "PreCompact/auto/ SessionStart/compact/context") {
		t.Fatalf("SessionStart did not run with source compact after the summary: %s", got)
	}
	n := len(runsOf(t, r))
	if _, err := x.Compact(context.Background(), r.s.ID); err != nil && !errors.Is(err, executor.ErrNothingToCompact) {
		t.Fatal(err)
	}
	if got := runsOf(t, r)[n:]; len(got) == 0 || got[0] != "PreCompact/manual/" {
		t.Fatalf("manual compaction ran %v", got)
	}
}

// A PreCompact hook's continue:false leaves the history as it is: a manual compaction is
// refused with the stopReason and records nothing.
func TestPreCompactContinueFalseKeepsTheHistory(t *testing.T) {
	r := newRig(t, map[string][]Group{PreCompact: cmdHook(stopJSON, 0)}, "name: x\nturns:\n  - text: hi\n")
	smallModel(t, r)
	x := executor.New(r.h, executor.Options{Headless: true, Hooks: r.r, NoCompaction: true})
	for range 4 {
		if _, err := x.Prompt(context.Background(), r.s.ID, "read big.log again", "test"); err != nil {
			t.Fatal(err)
		}
	}
	_, err := x.Compact(context.Background(), r.s.ID)
	if err == nil || !strings.Contains(err.Error(), "frozen for the release") {
		t.Fatalf("compaction: %v", err)
	}
	for _, e := range decoded[harness.CompactionApplied](t, r.h, r.s.ID, harness.TypeCompactionApplied) {
		if e.Kind == executor.CompactSummarize {
			t.Fatalf("summarised although the PreCompact hook stopped it: %+v", e)
		}
	}
}

// A SessionStart hook's continue:false ends the turn before the model is called; the hook
// runs again before the next turn.
func TestSessionStartContinueFalseStopsBeforeTheModel(t *testing.T) {
	r := newRig(t, map[string][]Group{SessionStart: cmdHook(stopJSON, 0)}, "name: x\nturns:\n  - text: hi\n")
	for range 2 {
		if res := r.prompt(t, "go"); !res.Cancelled {
			t.Fatalf("result %+v", res)
		}
	}
	if n := len(decoded[harness.ModelRequested](t, r.h, r.s.ID, harness.TypeModelRequested)); n != 0 {
		t.Fatalf("the model was called %d times", n)
	}
	if got := strings.Join(runsOf(t, r), " "); got != "SessionStart//stop SessionStart//stop" {
		t.Fatalf("hook runs %s", got)
	}
}

// A PreToolUse hook's allow lets a call through that the session's policy would ask about
// (here headless, so asking would refuse it); its ask asks even when the policy is auto.
func TestHookAllowOverridesAnAskPolicy(t *testing.T) {
	allow := `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`
	ask := `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}'`
	r := newRig(t, map[string][]Group{PreToolUse: {{Matcher: "Bash", Hooks: []Hook{{Command: allow}}}, {Matcher: "Write", Hooks: []Hook{{Command: ask}}}}}, `
name: allow
turns:
  - tool_calls:
      - name: bash
        args: {command: "echo allowed > allowed.txt"}
      - name: write_file
        args: {path: asked.txt, content: "x"}
  - text: Done.
`)
	x := executor.New(r.h, executor.Options{Headless: true, Hooks: r.r, Approvals: map[string]string{"bash": "ask", "write_file": "auto"}})
	if _, err := x.Prompt(context.Background(), r.s.ID, "go", "test"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(r.ws, "allowed.txt")); string(b) != "allowed\n" {
		t.Fatal("the hook's allow did not let the ask-policy call through")
	}
	if _, err := os.Stat(filepath.Join(r.ws, "asked.txt")); err == nil {
		t.Fatal("the hook's ask did not ask (headless: refused)")
	}
	asked := decoded[harness.ApprovalRequested](t, r.h, r.s.ID, harness.TypeApprovalRequested)
	if len(asked) != 1 || asked[0].Tool != "write_file" {
		t.Fatalf("approvals asked %+v", asked)
	}
}

// Hooks in the user's own settings file run without any trust (the project's untrusted hooks do
// not), and the hook.run event names the file they came from.
func TestUserSettingsHooksRunUntrustedProjectsDoNot(t *testing.T) {
	r := newRig(t, map[string][]Group{UserPromptSubmit: cmdHook(`cat >/dev/null; touch "$EXO_PROJECT_DIR/project-hook-ran"`, 0)}, "name: x\nturns:\n  - text: hi\n")
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	user := filepath.Join(cfg, "exo", "settings.json")
	os.MkdirAll(filepath.Dir(user), 0o755)
	os.WriteFile(user, []byte(`{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"cat >/dev/null; echo from-the-user-settings"}]}]}}`), 0o644)
	r.r.Trust = trust.Open(r.h.Home()) // nothing trusted
	r.prompt(t, "hi")
	if _, err := os.Stat(filepath.Join(r.ws, "project-hook-ran")); err == nil {
		t.Fatal("the untrusted project's hook ran")
	}
	inv := decoded[harness.InvocationReceived](t, r.h, r.s.ID, harness.TypeInvocationReceived)
	if len(inv) != 1 || !strings.Contains(inv[0].Text, "from-the-user-settings") {
		t.Fatalf("prompt %+v", inv)
	}
	var sources []string
	for _, run := range decoded[harness.HookRun](t, r.h, r.s.ID, harness.TypeHookRun) {
		sources = append(sources, run.Source+"|"+run.Command)
	}
	if got := strings.Join(sources, " "); !strings.Contains(got, user+"|cat") || !strings.Contains(got, "(untrusted settings)") {
		t.Fatalf("hook runs %s", got)
	}
}

// smallModel makes the session use the long script with a small window (compaction happens
// within a few turns) and writes the big.log it reads.
func smallModel(t *testing.T, r *rig) {
	t.Helper()
	path, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "scripts", "long.yaml"))
	if _, err := r.h.RegisterModel(harness.ModelSpec{Name: "small", Provider: "scripted", BaseURL: path, ContextWindow: 8000, MaxOutput: 1000}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 0; b.Len() < 4000; i++ {
		fmt.Fprintf(&b, "2026-11-22T03:%02d:%02d worker %d finished job %d in %d ms\n", i/60%60, i%60, i%7, i*13, 100+i)
	}
	os.WriteFile(filepath.Join(r.ws, "big.log"), []byte(b.String()), 0o644)
	if err := r.h.SetDefaultModel("small"); err != nil {
		t.Fatal(err)
	}
}
