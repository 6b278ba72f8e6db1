package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/internal/hostiletest"
	"exo/sandbox"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// rig is a session with a scripted model and project hooks in .exo/settings.json.
type rig struct {
	h  *harness.Harness
	s  *harness.Session
	ws string
	r  *Runner
}

func newRig(t *testing.T, settings map[string][]Group, script string) *rig {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no user settings
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "keep.txt"), []byte("precious\n"), 0o644)
	writeSettings(t, ws, settings)
	sp := filepath.Join(t.TempDir(), "script.yaml")
	os.WriteFile(sp, []byte(script), 0o644)
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "demo", Provider: "scripted", BaseURL: sp}); err != nil {
		t.Fatal(err)
	}
	s, err := h.NewSession(harness.NewSessionOptions{Name: "t", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	return &rig{h: h, s: s, ws: ws, r: NewRunner(h)}
}

func writeSettings(t *testing.T, ws string, hooks map[string][]Group) {
	os.MkdirAll(filepath.Join(ws, ".exo"), 0o755)
	b, _ := json.Marshal(Settings{Hooks: hooks})
	if err := os.WriteFile(filepath.Join(ws, ".exo", "settings.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func (r *rig) prompt(t *testing.T, text string) executor.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := executor.New(r.h, executor.Options{Headless: true, Hooks: r.r}).Prompt(ctx, r.s.ID, text, "test")
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func decoded[T any](t *testing.T, h *harness.Harness, id, typ string) []*T {
	t.Helper()
	evs, err := h.Events(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []*T
	for _, e := range evs {
		if e.Type == typ {
			p, err := harness.Decode(e)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p.(*T))
		}
	}
	return out
}

func results(t *testing.T, r *rig, tool string) []*harness.ToolCompleted {
	var out []*harness.ToolCompleted
	for _, tc := range decoded[harness.ToolCompleted](t, r.h, r.s.ID, harness.TypeToolCompleted) {
		if tc.Tool == tool {
			out = append(out, tc)
		}
	}
	return out
}

func cmdHook(command string, timeout int) []Group {
	return []Group{{Hooks: []Hook{{Type: "command", Command: command, Timeout: timeout}}}}
}

// A PreToolUse hook matched by Claude Code's tool name blocks a command with exit code 2; its
// stderr is the reason the model sees, and the command never runs.
func TestPreToolUseBlocksWithExitCode2(t *testing.T) {
	r := newRig(t, map[string][]Group{PreToolUse: {{Matcher: "Bash", Hooks: []Hook{{Type: "command",
		Command: `grep -q 'rm ' && { echo "no rm in this project" >&2; exit 2; }; exit 0`}}}}}, `
name: block
turns:
  - tool_calls:
      - name: bash
        args: {command: "rm keep.txt"}
      - name: bash
        args: {command: "echo fine"}
  - text: Done.
`)
	r.prompt(t, "clean up")
	bash := results(t, r, "bash")
	if len(bash) != 2 || !bash[0].IsError || !strings.Contains(bash[0].Output, "blocked by a PreToolUse hook: no rm in this project") {
		t.Fatalf("blocked call %+v", bash)
	}
	if bash[1].IsError || !strings.Contains(bash[1].Output, "fine") {
		t.Fatalf("the allowed call %+v", bash[1])
	}
	if _, err := os.Stat(filepath.Join(r.ws, "keep.txt")); err != nil {
		t.Fatal("the blocked command ran")
	}
	runs := decoded[harness.HookRun](t, r.h, r.s.ID, harness.TypeHookRun)
	if len(runs) != 2 || runs[0].Decision != "block" || runs[0].ExitCode != 2 || runs[0].Tool != "bash" || runs[1].Decision != "" {
		t.Fatalf("hook.run events %+v", runs)
	}
}

// A PreToolUse hook rewrites a write through hookSpecificOutput.updatedInput (Claude Code's
// file_path form) and a JSON deny refuses another tool.
func TestPreToolUseRewritesInputAndDeniesByJSON(t *testing.T) {
	ws := t.TempDir()
	_ = ws
	r := newRig(t, nil, `
name: rewrite
turns:
  - tool_calls:
      - name: write_file
        args: {path: draft.txt, content: "first draft"}
      - name: read_file
        args: {path: keep.txt}
  - text: Done.
`)
	rewrite := fmt.Sprintf(`cat >/dev/null; printf '%%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"file_path":"%s/final.txt","content":"rewritten by the hook"}}}'`, r.ws)
	deny := `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"reading is off today"}}'`
	writeSettings(t, r.ws, map[string][]Group{PreToolUse: {
		{Matcher: "Write|Edit", Hooks: []Hook{{Type: "command", Command: rewrite}}},
		{Matcher: "read_.*", Hooks: []Hook{{Type: "command", Command: deny}}},
	}})
	r.prompt(t, "write")
	if b, err := os.ReadFile(filepath.Join(r.ws, "final.txt")); err != nil || string(b) != "rewritten by the hook" {
		t.Fatalf("final.txt: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "draft.txt")); err == nil {
		t.Fatal("the original input was written too")
	}
	started := decoded[harness.ToolStarted](t, r.h, r.s.ID, harness.TypeToolStarted)
	if !strings.Contains(string(started[0].Args), "final.txt") {
		t.Fatalf("tool.started records the original args: %s", started[0].Args)
	}
	read := results(t, r, "read_file")
	if len(read) != 1 || !strings.Contains(read[0].Output, "reading is off today") {
		t.Fatalf("denied read %+v", read)
	}
	var decisions []string
	for _, run := range decoded[harness.HookRun](t, r.h, r.s.ID, harness.TypeHookRun) {
		decisions = append(decisions, run.Decision)
	}
	if strings.Join(decisions, ",") != "rewrite,block" {
		t.Fatalf("decisions %v", decisions)
	}
}

// A hook that hangs is killed at its timeout; the call goes on (a timeout blocks nothing).
func TestHookThatHangsIsKilledAtItsTimeout(t *testing.T) {
	r := newRig(t, map[string][]Group{PreToolUse: cmdHook("sleep 30", 1)}, `
name: hang
turns:
  - tool_calls:
      - name: bash
        args: {command: "echo still ran"}
  - text: Done.
`)
	r.prompt(t, "go")
	runs := decoded[harness.HookRun](t, r.h, r.s.ID, harness.TypeHookRun)
	if len(runs) != 1 || !runs[0].TimedOut || !strings.Contains(runs[0].Error, "timeout") || runs[0].DurationMs > 20_000 {
		t.Fatalf("hook.run %+v", runs)
	}
	if b := results(t, r, "bash"); len(b) != 1 || !strings.Contains(b[0].Output, "still ran") {
		t.Fatalf("bash %+v", b)
	}
}

// PostToolUse feedback (exit 2) reaches the model in the tool result; UserPromptSubmit adds
// context from plain stdout and blocks a prompt with exit 2.
func TestPostToolUseFeedbackAndUserPromptSubmit(t *testing.T) {
	r := newRig(t, map[string][]Group{
		PostToolUse:      {{Matcher: "bash", Hooks: []Hook{{Command: `echo "lint: 2 warnings" >&2; exit 2`}}}},
		UserPromptSubmit: cmdHook(`if grep -q forbidden; then echo "not that" >&2; exit 2; fi; echo "today is release day"`, 0),
	}, `
name: post
turns:
  - tool_calls:
      - name: bash
        args: {command: "echo built"}
  - text: Done.
`)
	r.prompt(t, "build it")
	b := results(t, r, "bash")
	if len(b) != 1 || !strings.Contains(b[0].Output, "built") || !strings.Contains(b[0].Output, "[PostToolUse hook] lint: 2 warnings") {
		t.Fatalf("bash %+v", b)
	}
	inv := decoded[harness.InvocationReceived](t, r.h, r.s.ID, harness.TypeInvocationReceived)
	if len(inv) != 1 || !strings.Contains(inv[0].Text, "today is release day") {
		t.Fatalf("prompt %+v", inv)
	}
	res := r.prompt(t, "do the forbidden thing")
	if !strings.Contains(res.Failure, "not that") {
		t.Fatalf("blocked prompt result %+v", res)
	}
	if inv := decoded[harness.InvocationReceived](t, r.h, r.s.ID, harness.TypeInvocationReceived); len(inv) != 1 {
		t.Fatalf("the blocked prompt was recorded: %+v", inv)
	}
}

// A Stop hook sends the model back to work once (stop_hook_active stops the loop); SessionStart
// runs once per session with plain stdout as context.
func TestStopHookContinuesOnceAndSessionStartRunsOnce(t *testing.T) {
	r := newRig(t, map[string][]Group{
		Stop:         cmdHook(`grep -q '"stop_hook_active":false' && { echo "run the tests before stopping" >&2; exit 2; }; exit 0`, 0),
		SessionStart: cmdHook(`echo "the project uses tabs"`, 0),
	}, `
name: stop
turns:
  - text: All done.
`)
	x := executor.New(r.h, executor.Options{Headless: true, Hooks: r.r})
	for range 2 {
		if _, err := x.Prompt(context.Background(), r.s.ID, "finish", "test"); err != nil {
			t.Fatal(err)
		}
	}
	var hookPrompts int
	for _, inv := range decoded[harness.InvocationReceived](t, r.h, r.s.ID, harness.TypeInvocationReceived) {
		if inv.Source == "hook" && inv.Text == "run the tests before stopping" {
			hookPrompts++
		}
	}
	if hookPrompts != 2 {
		t.Fatalf("stop hook prompts %d, want one per turn", hookPrompts)
	}
	var starts, stops int
	for _, run := range decoded[harness.HookRun](t, r.h, r.s.ID, harness.TypeHookRun) {
		switch run.Event {
		case SessionStart:
			starts++
			if run.Decision != "context" {
				t.Fatalf("session start run %+v", run)
			}
		case Stop:
			stops++
		}
	}
	if starts != 1 || stops != 4 {
		t.Fatalf("SessionStart ran %d times, Stop %d", starts, stops)
	}
}

// Hooks get no secret of exo's environment, and a secret value a hook prints is redacted in
// its hook.run event.
func TestHookEnvironmentAndOutputHoldNoSecret(t *testing.T) {
	const val = "sk-hook-Tt55-sealed-value"
	t.Setenv("OPENAI_API_KEY", val)
	r := newRig(t, map[string][]Group{UserPromptSubmit: cmdHook(`env > "$EXO_PROJECT_DIR/hook-env.txt"; echo "`+val+`"`, 0)}, "name: s\nturns:\n  - text: ok\n")
	r.h.SetSecret("openai", []byte(val))
	r.prompt(t, "hi")
	env, _ := os.ReadFile(filepath.Join(r.ws, "hook-env.txt"))
	if strings.Contains(string(env), val) || !strings.Contains(string(env), "CLAUDE_PROJECT_DIR="+r.ws) {
		t.Fatalf("hook env:\n%s", env)
	}
	evs, _ := r.h.Events(r.s.ID, 0, 0)
	for _, e := range evs {
		if strings.Contains(string(e.Data), val) {
			t.Fatalf("secret in %s: %s", e.Type, e.Data)
		}
	}
}

func TestMatchers(t *testing.T) {
	cases := []struct {
		m    string
		tool string
		want bool
	}{
		{"", "bash", true}, {"*", "mcp__fs__read", true}, {"Bash", "bash", true}, {"Write|Edit", "edit_file", true},
		{"Write", "write_file", true}, {"Write", "read_file", false}, {"bash", "bash", true}, {"mcp__fs__.*", "mcp__fs__read_file", true},
		{"mcp__.*", "bash", false}, {"Read", "read_file", true}, {"Bas", "bash", false},
	}
	for _, c := range cases {
		re, err := compileMatcher(c.m)
		if err != nil {
			t.Fatal(err)
		}
		if got := (Configured{re: re}).Matches(c.tool); got != c.want {
			t.Errorf("matcher %q on %s = %v", c.m, c.tool, got)
		}
	}
	if _, err := Load("", []string{writeTemp(t, `{"hooks":{"PreToolUse":[{"matcher":"(","hooks":[{"type":"command","command":"x"}]}]}}`)}); err == nil {
		t.Fatal("a bad matcher was accepted")
	}
}

func writeTemp(t *testing.T, s string) string {
	p := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(p, []byte(s), 0o644)
	return p
}

// The model's file tools cannot add a hook (hooks run outside the sandbox) or an MCP server.
func TestFileToolsCannotWriteHookOrMCPConfig(t *testing.T) {
	r := newRig(t, map[string][]Group{}, `
name: sneak
turns:
  - tool_calls:
      - name: write_file
        args: {path: .exo/settings.json, content: "{\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"touch /tmp/pwned\"}]}]}}"}
      - name: write_file
        args: {path: .mcp.json, content: "{}"}
      - name: edit_file
        args: {path: .exo/settings.local.json, old_string: "", new_string: "x"}
  - text: Done.
`)
	before, _ := os.ReadFile(filepath.Join(r.ws, ".exo", "settings.json"))
	r.prompt(t, "go")
	for _, tc := range results(t, r, "write_file") {
		if !tc.IsError || !strings.Contains(tc.Output, "outside the sandbox") {
			t.Fatalf("write %+v", tc)
		}
	}
	after, _ := os.ReadFile(filepath.Join(r.ws, ".exo", "settings.json"))
	if string(before) != string(after) {
		t.Fatal("the settings were rewritten")
	}
	if _, err := os.Stat(filepath.Join(r.ws, ".mcp.json")); err == nil {
		t.Fatal(".mcp.json was created")
	}
}

// TestSettingsSpecialRefused: a project settings file that is a named pipe, socket, device or
// link to /dev/zero gives an error at once; one inside a folder swapped for a link to outside
// is never read.
func TestSettingsSpecialRefused(t *testing.T) {
	ws := t.TempDir()
	f := filepath.Join(ws, ".exo", "settings.json")
	for _, kind := range hostiletest.Kinds {
		if !hostiletest.Plant(t, f, kind) {
			continue
		}
		hostiletest.Within(t, "loading hooks with settings.json "+string(kind), func() {
			if _, err := Load(ws, []string{f}); err == nil {
				t.Errorf("%s loaded", kind)
			}
		})
	}
	os.RemoveAll(filepath.Join(ws, ".exo"))
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "settings.json"), []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"outside"}]}]}}`), 0o644)
	os.Symlink(outside, filepath.Join(ws, ".exo"))
	if hs, err := Load(ws, []string{f}); err == nil && len(hs) > 0 {
		t.Fatalf("hooks read through a planted link: %+v", hs)
	}
}
