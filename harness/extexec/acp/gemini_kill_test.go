package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/exectest"
)

// geminiHistorySeen checks that the restarted Gemini CLI was given the session so far: its
// request for "say hello" (the prompt after the kill) holds the prompt of the killed turn.
func geminiHistorySeen(t *testing.T, srv *fakeGemini, killed string) {
	t.Helper()
	calls := srv.streamCalls()
	last := string(calls[len(calls)-1].Body)
	if !strings.Contains(last, "say hello") || !strings.Contains(last, killed) {
		t.Fatalf("the restarted CLI's request does not hold the killed turn's prompt %q:\n%.3000s", killed, last)
	}
}

// TestGeminiCLIKilledMidAnswer: the Gemini CLI killed with SIGKILL (its process alone; the
// child it relaunches itself as goes with it) while the model's answer streams: the turn ends
// failed with the reason, no model call stays in flight, nothing of the CLI is left, and the
// next prompt starts a new CLI that is given the conversation so far.
func TestGeminiCLIKilledMidAnswer(t *testing.T) {
	f, srv := geminiFixture(t, func([]byte) string { return geminiText("hello again") })
	x := f.executor(t, Options{Command: []string{geminiCLI(t)}})
	exectest.KillMidTurn(t, x.Runner, f.s.ID, exectest.Kill{Agent: "gemini", Prompt: "slow answer please",
		At: srv.hanging, Failure: "exited"})
	geminiHistorySeen(t, srv, "slow answer please")
	checkGeminiKey(t, srv, x, f)
}

// TestGeminiCLIKilledWhileAPermissionWaits: the Gemini CLI killed while exo's approval of its
// run_shell_command waits for the user: the turn ends failed, no approval stays pending and no
// call open (the asked call is closed), the command never ran, and the next prompt works.
func TestGeminiCLIKilledWhileAPermissionWaits(t *testing.T) {
	f, srv := geminiFixture(t, func(body []byte) string {
		if strings.Contains(string(body), "say hello") {
			return geminiText("hello again")
		}
		return geminiStep("a2lsbA", "run_shell_command", `{"command": "echo ran > ran.txt"}`)
	})
	x := f.executor(t, Options{Command: []string{geminiCLI(t)}, Exec: executor.Options{
		Approvals: map[string]string{"bash": "ask"}, ApprovalTimeout: 10 * time.Minute}})
	exectest.KillMidTurn(t, x.Runner, f.s.ID, exectest.Kill{Agent: "gemini", Prompt: "run it then",
		At: exectest.EventSeen(f.h, f.s.ID, harness.TypeApprovalRequested), Failure: "exited"})
	if _, err := os.Stat(filepath.Join(f.ws, "ran.txt")); err == nil {
		t.Fatal("the command whose approval was pending ran")
	}
	geminiHistorySeen(t, srv, "run it then")
}
