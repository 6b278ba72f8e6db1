package acp

import (
	"context"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/extexec/exectest"
)

// A loaded session's playback of its history is recorded nowhere, whenever the agent sends it:
// before it answers session/load, after it (while the next turn runs, as the Gemini CLI can), or
// not at all; the next turn records only what the agent did in it, even an answer in the same
// words as one the playback holds.
func TestLoadedSessionPlaybackIsNotRecorded(t *testing.T) {
	bin := tinyAgent(t)
	for _, mode := range []string{"after", "before", "none"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			opts := Options{Command: []string{bin}, Env: map[string]string{"TINYAGENT_PLAYBACK": mode}}
			x := f.executor(t, opts)
			res, err := x.Prompt(context.Background(), f.s.ID, "run a tool", "test")
			okResult(t, res, err)
			first := f.events(t, f.s.ID)
			if n := len(exectest.Payloads[harness.ToolCompleted](t, first, harness.TypeToolCompleted)); n != 1 || res.Response != "Ran it." {
				t.Fatalf("the first turn: %d tool calls, answer %q: %s", n, res.Response, exectest.Types(first))
			}
			x.Close()
			x2 := f.executor(t, opts)
			res, err = x2.Prompt(context.Background(), f.s.ID, "say it again", "test")
			okResult(t, res, err)
			if !x2.Session(f.s.ID).Proc.(*proc).loaded {
				t.Fatal("the session was not loaded")
			}
			checkNoPlayback(t, f.events(t, f.s.ID)[len(first):], res.Response, "Ran it.", "I will run a tool.")
		})
	}
}

// checkNoPlayback checks that a turn after a load recorded no tool call, answered want, and
// recorded none of the earlier turn's text.
func checkNoPlayback(t *testing.T, evs []harness.Event, answer, want, earlier string) {
	t.Helper()
	if answer != want {
		t.Errorf("the answer after the load %q, want %q", answer, want)
	}
	for _, e := range evs {
		switch e.Type {
		case harness.TypeToolStarted, harness.TypeToolCompleted, harness.TypeApprovalRequested:
			t.Errorf("the turn after the load recorded a tool call the agent did not make in it: %s %s", e.Type, e.Data)
		}
		if e.Type != harness.TypeModelRequested && strings.Contains(string(e.Data), earlier) {
			t.Errorf("the turn after the load recorded the earlier turn's text: %s %s", e.Type, e.Data)
		}
	}
	if t.Failed() {
		t.Logf("events: %s", exectest.Types(evs))
	}
}
