package acp

import (
	"context"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

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
			want := 3 // "I will run a tool.", the call, "Ran it."
			if mode == "none" {
				want = 0
			}
			if n := x2.Session(f.s.ID).Proc.(*proc).pb.droppedCount(); n != want {
				t.Errorf("%d updates taken for playback, want %d", n, want)
			}
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

// text and call are session updates as agents send them.
func text(s string) sdk.SessionUpdate { return sdk.UpdateAgentMessageText(s) }
func call(id string) sdk.SessionUpdate {
	return sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{ToolCallId: sdk.ToolCallId(id), Title: "Shell", SessionUpdate: "tool_call"}}
}

// liveTurn notes updates as a live turn's and ends the turn.
func liveTurn(p *playback, us ...sdk.SessionUpdate) {
	for _, u := range us {
		p.live(u)
	}
	p.endTurn()
}

// The playback is told by its marks wherever it falls: woven into the turn's own updates, with
// a message it left out, a call's later updates; an answer the same as one in the playback is
// the turn's once the playback passed it; and an agent that plays nothing back loses nothing.
func TestPlaybackMarks(t *testing.T) {
	first := newPlayback()
	liveTurn(first, text("Let me "), text("look."), call("c1"), text("Found "), text("it."))
	liveTurn(first, text("Again."), call("c2"), text("Found it."))
	marks := first.saved()
	if len(marks) != 6 {
		t.Fatalf("marks %v", marks)
	}
	type step struct {
		u      sdk.SessionUpdate
		replay bool
	}
	for name, steps := range map[string][]step{
		"woven": {{text("Let me look."), true}, {text("Live one."), false}, {call("c1"), true}, {call("c9"), false},
			{text("Found it."), true}, {text("Again."), true}, {call("c2"), true}, {text("Found it."), true}, {text("Found it."), false}},
		"left out": {{text("Let me look."), true}, {call("c1"), true}, {call("c2"), true}, {text("Found it."), true}, {text("Again."), false}},
		"later update": {{text("Let me look."), true}, {call("c1"), true},
			{sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{ToolCallId: "c1"}}, true}, {text("Found it."), true}},
		"none":           {{text("Found it."), false}, {text("Let me look."), false}, {call("c1"), false}},
		"not first mark": {{call("c2"), false}, {text("Found it."), false}},
	} {
		t.Run(name, func(t *testing.T) {
			p := newPlayback()
			p.load(marks)
			for i, s := range steps {
				if got := p.replayed(s.u); got != s.replay {
					t.Fatalf("step %d (%+v): taken for playback %v, want %v", i, s.u, got, s.replay)
				}
			}
			p.endTurn()
			if p.replayed(text("Let me look.")) {
				t.Fatal("the playback went on after the first turn")
			}
		})
	}
}

// A session's marks stop at maxMarks (its saved file stays small); a load of a saved file
// without marks (saved by an older exo) takes nothing for playback.
func TestPlaybackMarksBounded(t *testing.T) {
	p := newPlayback()
	for i := range maxMarks + 10 {
		liveTurn(p, call(fmt.Sprint("c", i)))
	}
	if n := len(p.saved()); n != maxMarks {
		t.Fatalf("%d marks, want %d", n, maxMarks)
	}
	q := newPlayback()
	q.load(nil)
	if q.replayed(call("c0")) || q.replayed(text("x")) {
		t.Fatal("a load without marks took an update for playback")
	}
}
