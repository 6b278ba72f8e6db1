package codex

import (
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/exectest"
)

// TestCodexKilledWhileAnApprovalWaits: codex killed (SIGKILL) while exo's approval of its native
// command waits for the user: the turn ends promptly as failed with executor.failed, no approval
// stays pending and no call open, nothing of codex's process group is left, and the next prompt
// runs (exectest.KillMidTurn).
func TestCodexKilledWhileAnApprovalWaits(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{NativeTools: true, Exec: executor.Options{Approvals: map[string]string{"bash": "ask"}, ApprovalTimeout: 10 * time.Minute}})
	exectest.KillMidTurn(t, x.Runner, f.s.ID, exectest.Kill{Agent: "codex", Prompt: "native command please",
		At: exectest.EventSeen(f.h, f.s.ID, harness.TypeApprovalRequested), Group: true, Failure: "codex exited"})
}
