package acp

import (
	"context"
	"testing"

	"exo/harness/executor"
)

// loadAcross runs prompt first with one agent process and second with another that loads the
// session, and checks the second turn recorded nothing of the first's (answer is its answer,
// earlier text of the first turn's); it returns how many updates were taken for playback, and
// whether the session was loaded at all.
func loadAcross(t *testing.T, f *fixture, opts Options, first, second, answer, earlier string) (dropped int, loaded bool) {
	t.Helper()
	x := f.executor(t, opts)
	res, err := x.Prompt(context.Background(), f.s.ID, first, "test")
	okResult(t, res, err)
	before := len(f.events(t, f.s.ID))
	x.Close()
	x2 := f.executor(t, opts)
	res, err = x2.Prompt(context.Background(), f.s.ID, second, "test")
	okResult(t, res, err)
	pr := x2.Session(f.s.ID).Proc.(*proc)
	checkNoPlayback(t, f.events(t, f.s.ID)[before:], res.Response, answer, earlier)
	return pr.pb.droppedCount(), pr.loaded
}

// claude-agent-acp loads a session after a turn that ran its own Bash and plays it back (before
// its answer to the load, so exo recorded none of it before the marks either): the marks tell
// the playback, and the next turn records no call nor text of the first.
func TestClaudeAdapterLoadRecordsNoPlayback(t *testing.T) {
	f := newFixture(t)
	opts := Options{Command: []string{claudeACP(t)}, Exec: executor.Options{Approvals: map[string]string{"bash": "allow"}, Headless: true}}
	dropped, loaded := loadAcross(t, f, opts, "acp bash", "say hello", "Hello from the script.", "Done through ACP.")
	if !loaded {
		t.Fatal("claude-agent-acp did not load the session")
	}
	if dropped == 0 {
		t.Fatal("no update of claude-agent-acp's playback was told by its marks")
	}
}

// codex-acp loads a session after a turn that patched a file with Codex's own tool and plays it
// back (before its answer to the load, as claude-agent-acp): the marks tell the playback, and
// the next turn records nothing of the first.
func TestCodexAdapterLoadRecordsNoPlayback(t *testing.T) {
	f, _ := codexFixture(t)
	opts := Options{Command: []string{codexACP(t)}, Exec: executor.Options{Approvals: map[string]string{"edit_file": "allow", "bash": "allow"}, Headless: true}}
	dropped, loaded := loadAcross(t, f, opts, "native patch", "say hello", "Hello from Codex.", "Patched.")
	if !loaded || dropped == 0 {
		t.Fatalf("codex-acp: loaded %v, %d updates of its playback told by its marks", loaded, dropped)
	}
}
