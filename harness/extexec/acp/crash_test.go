package acp

import (
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/exectest"
)

// TestAgentKilledWhileAPermissionWaits: claude-agent-acp killed (SIGKILL, its whole process
// group) while exo's approval of its session/request_permission waits for the user: the turn
// ends promptly as failed with executor.failed, no approval stays pending and no call open,
// nothing of the agent's group is left, and the next prompt runs (exectest.KillMidTurn).
func TestAgentKilledWhileAPermissionWaits(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{Command: []string{claudeACP(t)}, Exec: executor.Options{
		Approvals: map[string]string{"bash": "ask"}, ApprovalTimeout: 10 * time.Minute}})
	exectest.KillMidTurn(t, x.Runner, f.s.ID, exectest.Kill{Agent: "agent", Prompt: "acp bash please",
		At: exectest.EventSeen(f.h, f.s.ID, harness.TypeApprovalRequested), Group: true, Failure: "exited"})
}
