package acp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/exectest"
)

// geminiStep is a streamed function call with a thought signature, in an answer with its own
// response id (the live service gives each answer one; exo names calls without ids after it).
func geminiStep(respID, name, args string) string {
	return strings.ReplaceAll(geminiCallTurn(name, args), `"ZmFrZTI"`, `"`+respID+`"`)
}

// The Gemini CLI's own tools (write_file, run_shell_command) go through exo's approvals: the
// CLI's permission request is put to exo's policy under the model's call (its id, name and
// arguments, which the CLI does not send), a denied write_file writes nothing, an approved
// run_shell_command runs, exo's bash (over MCP) is recorded once under the model's call, and
// every answer of the turn is the conversation's (no step recorded as a side call).
func TestGeminiCLIOwnToolsAskExo(t *testing.T) {
	var ws string
	f, srv := geminiFixture(t, func(body []byte) string {
		switch strings.Count(string(body), `"functionResponse"`) {
		case 0:
			return geminiStep("cmVzcDE", "write_file", `{"file_path": "`+filepath.Join(ws, "denied.txt")+`", "content": "denied\n"}`)
		case 1:
			return geminiStep("cmVzcDI", "run_shell_command", `{"command": "echo approved > approved.txt"}`)
		case 2:
			return geminiStep("cmVzcDM", "mcp_exo_bash", `{"command": "cat approved.txt"}`)
		}
		return geminiText("all three done")
	})
	ws = f.ws
	x := f.executor(t, Options{Command: []string{geminiCLI(t)}, Exec: executor.Options{
		Approvals: map[string]string{"bash": "ask", "edit_file": "ask"}, ApprovalTimeout: time.Minute}})
	answerApprovals(t, f, executor.DecisionDeny, executor.DecisionOnce, executor.DecisionOnce)
	res, err := x.Prompt(context.Background(), f.s.ID, "make the files", "test")
	okResult(t, res, err)
	evs := f.events(t, f.s.ID)
	if _, err := os.Stat(filepath.Join(f.ws, "denied.txt")); !os.IsNotExist(err) {
		t.Fatalf("the denied write_file wrote denied.txt: %v (events %s)", err, exectest.Types(evs))
	}
	if b, err := os.ReadFile(filepath.Join(f.ws, "approved.txt")); err != nil || string(b) != "approved\n" {
		t.Fatalf("approved.txt: %q %v (events %s)", b, err, exectest.Types(evs))
	}
	want := []struct{ id, tool, arg, decision string }{
		{"exo-gemini-cmVzcDE-0", "write_file", "denied.txt", executor.DecisionDeny},
		{"exo-gemini-cmVzcDI-0", "run_shell_command", "echo approved > approved.txt", executor.DecisionOnce},
		{"exo-gemini-cmVzcDM-0", "bash", "cat approved.txt", executor.DecisionOnce},
	}
	asked := exectest.Payloads[harness.ApprovalRequested](t, evs, harness.TypeApprovalRequested)
	resolved := exectest.Payloads[harness.ApprovalResolved](t, evs, harness.TypeApprovalResolved)
	if len(asked) != len(want) || len(resolved) != len(want) {
		t.Fatalf("%d approvals asked, %d resolved, want %d each (events %s)", len(asked), len(resolved), len(want), exectest.Types(evs))
	}
	done := map[string]*harness.ToolCompleted{}
	for _, tc := range exectest.Payloads[harness.ToolCompleted](t, evs, harness.TypeToolCompleted) {
		if done[tc.CallID] != nil {
			t.Errorf("call %s completed twice", tc.CallID)
		}
		done[tc.CallID] = tc
	}
	for i, w := range want {
		if asked[i].CallID != w.id || asked[i].Tool != w.tool || !strings.Contains(asked[i].Summary, w.arg) {
			t.Errorf("approval %d asked %+v (args %s), want %s %s with %q", i, asked[i], asked[i].Args, w.id, w.tool, w.arg)
		}
		if resolved[i].CallID != w.id || resolved[i].Decision != w.decision {
			t.Errorf("approval %d resolved %+v, want %s %s", i, resolved[i], w.id, w.decision)
		}
		if d := done[w.id]; d == nil || d.IsError != (w.decision == executor.DecisionDeny) {
			t.Errorf("the result of %s: %+v", w.id, d)
		}
	}
	if d := done["exo-gemini-cmVzcDM-0"]; d == nil || !strings.Contains(d.Output, "approved") {
		t.Errorf("exo's bash: %+v", d)
	}
	if n := strings.Count(exectest.Types(evs), harness.TypeModelCompleted); n != 4 || strings.Contains(exectest.Types(evs), harness.TypeModelSide+" ") {
		t.Fatalf("%d answers of the conversation, want 4, and no side call: %s", n, exectest.Types(evs))
	}
	calls := srv.streamCalls()
	last := string(calls[len(calls)-1].Body)
	for _, s := range []string{`"name":"write_file","response":{"error":"Tool \"write_file\" was canceled by the user."}`, `approved\n`} {
		if !strings.Contains(last, s) {
			t.Errorf("the last request lacks %s:\n%s", s, last)
		}
	}
	checkGeminiKey(t, srv, x, f)
}
