package claude

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/exectest"
	"exo/harness/extexec/modeltest"
	"exo/harness/governance"
)

// nativeScript plays, for a prompt holding when, one turn per call, then "Done.".
func nativeScript(when string, calls ...modeltest.Call) *modeltest.Script {
	var turns []modeltest.Turn
	for _, c := range calls {
		turns = append(turns, modeltest.Turn{ToolCalls: []modeltest.Call{c}})
	}
	turns = append(turns, modeltest.Turn{Text: "Done."})
	return &modeltest.Script{Prompts: []modeltest.Prompt{{When: when, Turns: turns}, {Turns: []modeltest.Turn{{Text: "Hello."}}}}}
}

// TestNativeDenyPolicyBlocksWhatClaudeAllowsItself: with exo's policy bash: deny and
// read_file: deny, Claude's read-only Bash (ls) and its Read of a file in the workspace — uses
// Claude allows itself without asking can_use_tool — are refused by exo's PreToolUse hook with the
// reason; nothing they would have shown reaches the model.
func TestNativeDenyPolicyBlocksWhatClaudeAllowsItself(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "ls-marker-7f3a.txt"), []byte("x\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("read-marker-c0ffee\n"), 0o644)
	f := scriptedFixture(t, t.TempDir(), ws, nativeScript("look around",
		modeltest.Call{Name: "Bash", Input: map[string]any{"command": "ls", "description": "list files"}},
		modeltest.Call{Name: "Read", Input: map[string]any{"file_path": filepath.Join(ws, "notes.txt")}}), harness.Options{})
	x := f.executor(t, Options{NativeTools: true, Exec: executor.Options{Approvals: map[string]string{"bash": "deny", "read_file": "deny"}}})
	res, err := x.Prompt(context.Background(), f.s.ID, "look around", "test")
	okResult(t, res, err)
	for i, r := range f.srv.Requests() {
		if bytes.Contains(r.Body, []byte("ls-marker-7f3a")) || bytes.Contains(r.Body, []byte("read-marker-c0ffee")) {
			t.Fatalf("request %d shows what a denied tool read: %s", i, tail(r.Body, 600))
		}
	}
	evs := f.events(t, f.s.ID)
	done := exectest.Payloads[harness.ToolCompleted](t, evs, harness.TypeToolCompleted)
	if len(done) != 2 || done[0].Tool != "Bash" || done[1].Tool != "Read" || !done[0].IsError || !done[1].IsError {
		t.Fatalf("tool results: %+v\n%s", done, exectest.Types(evs))
	}
	for _, d := range done {
		if !strings.Contains(d.Output, "denied") {
			t.Fatalf("%s refused without exo's reason: %q", d.Tool, d.Output)
		}
	}
	if body := lastBody(t, f); !bytes.Contains(body, []byte("denied")) {
		t.Fatalf("claude was not told why: %s", tail(body, 600))
	}
}

// TestNativeSecretChecks: a Bash that names the sealed secret's variable and a Read through a
// link in the workspace into exo's home are refused with secret.denied, as exo's own tools are
// (Claude 2.1.330 asks about these two itself; the hook makes the checks not depend on that); the
// session token Claude holds in that variable reaches no request.
func TestNativeSecretChecks(t *testing.T) {
	home := filepath.Join(t.TempDir(), "exohome")
	ws := t.TempDir()
	if err := os.Symlink(home, filepath.Join(ws, "h")); err != nil {
		t.Fatal(err)
	}
	f := scriptedFixture(t, home, ws, nativeScript("peek",
		modeltest.Call{Name: "Bash", Input: map[string]any{"command": "printenv ANTHROPIC_API_KEY", "description": "show a variable"}},
		modeltest.Call{Name: "Read", Input: map[string]any{"file_path": filepath.Join(ws, "h", "secret.key")}}), harness.Options{})
	x := f.executor(t, Options{NativeTools: true})
	res, err := x.Prompt(context.Background(), f.s.ID, "peek", "test")
	okResult(t, res, err)
	token := x.Session(f.s.ID).Endpoint.Token()
	for i, r := range f.srv.Requests() {
		if bytes.Contains(r.Body, []byte(token)) {
			t.Fatalf("request %d holds the session token", i)
		}
	}
	evs := f.events(t, f.s.ID)
	if n := len(exectest.Payloads[harness.SecretDenied](t, evs, harness.TypeSecretDenied)); n != 2 {
		t.Fatalf("%d secret.denied, want 2: %s", n, exectest.Types(evs))
	}
	done := exectest.Payloads[harness.ToolCompleted](t, evs, harness.TypeToolCompleted)
	if len(done) != 2 || !done[0].IsError || !done[1].IsError {
		t.Fatalf("tool results %+v", done)
	}
}

// TestNativeWriteOutsideScopeRefused: with a session scope of docs/**, Claude's own Write and
// Edit (after a Read, as Claude wants) of files in the workspace but outside the scope are refused
// (policy.violation, Claude told why), and its Write inside the scope happens.
func TestNativeWriteOutsideScopeRefused(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n"), 0o644)
	f := scriptedFixture(t, t.TempDir(), ws, nativeScript("scoped writes",
		modeltest.Call{Name: "Write", Input: map[string]any{"file_path": filepath.Join(ws, "docs", "a.md"), "content": "in scope\n"}},
		modeltest.Call{Name: "Write", Input: map[string]any{"file_path": filepath.Join(ws, "secret", "plan.md"), "content": "out of scope\n"}},
		modeltest.Call{Name: "Read", Input: map[string]any{"file_path": filepath.Join(ws, "main.go")}},
		modeltest.Call{Name: "Edit", Input: map[string]any{"file_path": filepath.Join(ws, "main.go"), "old_string": "package main", "new_string": "package evil"}}),
		harness.Options{})
	if _, err := governance.SetScope(f.h, f.s.ID, governance.Scope{Allow: []string{"docs/**"}}, harness.ActorUser, "test"); err != nil {
		t.Fatal(err)
	}
	x := f.executor(t, Options{NativeTools: true, Exec: executor.Options{CheckWrite: governance.CheckWriteHook(f.h)}})
	res, err := x.Prompt(context.Background(), f.s.ID, "scoped writes", "test")
	okResult(t, res, err)
	if b, err := os.ReadFile(filepath.Join(ws, "docs", "a.md")); err != nil || string(b) != "in scope\n" {
		t.Fatalf("the in-scope write: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "secret", "plan.md")); !os.IsNotExist(err) {
		t.Fatalf("the out-of-scope write happened: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "main.go")); string(b) != "package main\n" {
		t.Fatalf("the out-of-scope edit happened: %q", b)
	}
	evs := f.events(t, f.s.ID)
	done := exectest.Payloads[harness.ToolCompleted](t, evs, harness.TypeToolCompleted)
	if len(done) != 4 || done[0].IsError || !done[1].IsError || done[2].IsError || !done[3].IsError ||
		!strings.Contains(done[1].Output, "scope") || !strings.Contains(done[3].Output, "scope") {
		for _, d := range done {
			t.Logf("%s: error %v: %q", d.Tool, d.IsError, d.Output)
		}
		t.Fatalf("tool results")
	}
	if n := len(exectest.Payloads[harness.PolicyViolation](t, evs, harness.TypePolicyViolation)); n != 2 {
		t.Fatalf("%d policy.violation, want 2: %s", n, exectest.Types(evs))
	}
}
