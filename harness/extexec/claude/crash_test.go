package claude

import (
	"strings"
	"sync"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/exectest"
	"exo/harness/extexec/modeltest"
)

// TestClaudeKilledAtEachPhase kills claude with SIGKILL while an approval of exo's waits for the
// user, while exo's bash runs its command, and while the answer streams: each time the turn ends
// promptly as failed with executor.failed, no call stays open and no approval pending, no process
// of claude's group is left, and the next prompt runs (exectest.KillMidTurn).
func TestClaudeKilledAtEachPhase(t *testing.T) {
	sc := &modeltest.Script{Prompts: []modeltest.Prompt{
		{When: "ask first", Turns: []modeltest.Turn{{ToolCalls: []modeltest.Call{{Name: "mcp__exo__bash", Input: map[string]any{"command": "echo asked > asked.txt"}}}}, {Text: "Asked."}}},
		{When: "run long", Turns: []modeltest.Turn{{ToolCalls: []modeltest.Call{{Name: "mcp__exo__bash", Input: map[string]any{"command": "sleep 120"}}}}, {Text: "Slept."}}},
		{When: "stream slowly", Turns: []modeltest.Turn{{Text: strings.Repeat("a slow answer ", 200), Chunk: 4, DelayMs: 20}}},
		{Turns: []modeltest.Turn{{Text: "Hello."}}},
	}}
	for _, c := range []struct {
		phase, prompt string
		approvals     map[string]string
		// when waits for the phase and reports when it came.
		when func(f *fixture, deltas <-chan struct{}) <-chan struct{}
	}{
		{"approval pending", "ask first", map[string]string{"bash": "ask"}, func(f *fixture, _ <-chan struct{}) <-chan struct{} {
			return exectest.EventSeen(f.h, f.s.ID, harness.TypeApprovalRequested)
		}},
		{"tool running", "run long", nil, func(f *fixture, _ <-chan struct{}) <-chan struct{} {
			return exectest.EventSeen(f.h, f.s.ID, harness.TypeToolStarted)
		}},
		{"mid-stream", "stream slowly", nil, func(_ *fixture, deltas <-chan struct{}) <-chan struct{} { return deltas }},
	} {
		t.Run(c.phase, func(t *testing.T) {
			f := scriptedFixture(t, t.TempDir(), "", sc, harness.Options{})
			deltas := make(chan struct{})
			var once sync.Once
			x := f.executor(t, Options{Exec: executor.Options{Approvals: c.approvals, ApprovalTimeout: 10 * time.Minute,
				OnDelta: func(_, _ string) { once.Do(func() { close(deltas) }) }}})
			// claude alone is killed: the processes of its PID namespace die with it.
			exectest.KillMidTurn(t, x.Runner, f.s.ID, exectest.Kill{Agent: "claude", Prompt: c.prompt, At: c.when(f, deltas), Failure: "exited"})
		})
	}
}
