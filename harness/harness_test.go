package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"exo/store"
)

func openTest(tb testing.TB, opts Options) *Harness {
	tb.Helper()
	h, err := Open(tb.TempDir(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { h.Close() })
	return h
}

// turn returns the records of one scripted turn: a prompt, a tool call and an answer.
func turn(i int) []store.Record {
	code := 0
	return []store.Record{
		MustRecord(TypeInvocationReceived, ActorUser, InvocationReceived{Text: fmt.Sprintf("prompt %d: make it faster", i)}),
		MustRecord(TypeStepStarted, ExecutorActor("default"), StepStarted{Step: 1}),
		MustRecord(TypeModelRequested, ExecutorActor("default"), ModelRequested{Model: "scripted", Messages: i}),
		MustRecord(TypeModelCompleted, ExecutorActor("default"), ModelCompleted{Model: "scripted", ToolCalls: []ToolCall{{ID: fmt.Sprint("c", i), Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)}}, Usage: Usage{Input: 100, Output: 20}, StopReason: "tool_use"}),
		MustRecord(TypeToolStarted, ToolActor("bash"), ToolStarted{CallID: fmt.Sprint("c", i), Tool: "bash", Args: json.RawMessage(`{"command":"ls"}`)}),
		MustRecord(TypeToolCompleted, ToolActor("bash"), ToolCompleted{CallID: fmt.Sprint("c", i), Tool: "bash", Output: "main.go\nREADME.md\n", ExitCode: &code, DurationMs: 3}),
		MustRecord(TypeModelCompleted, ExecutorActor("default"), ModelCompleted{Model: "scripted", Text: fmt.Sprintf("Answer %d: the slow path rebuilds the prompt view.", i), Usage: Usage{Input: 150, Output: 40}, StopReason: "end_turn"}),
	}
}

func TestSessionLifecycleForkRewind(t *testing.T) {
	h := openTest(t, Options{CheckpointEvery: 8})
	s, err := h.NewSession(NewSessionOptions{Name: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := h.Append(s.ID, turn(i)...); err != nil {
			t.Fatal(err)
		}
	}
	st, err := h.State(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st.Head != 22 || st.Turns != 3 || st.ToolCalls != 3 || st.Status != StatusIdle || st.Usage.Input != 750 {
		t.Fatalf("state %+v", st)
	}
	f, err := h.Fork(s.ID, 8, ForkOptions{Name: "beta"})
	if err != nil {
		t.Fatal(err)
	}
	fs, _ := h.State(f.ID)
	if fs.Head != 9 || fs.Turns != 1 || f.Parent != s.ID || f.ParentSeq != 8 {
		t.Fatalf("fork state %+v session %+v", fs, f)
	}
	r, err := h.Rewind(s.ID, 15)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Branches) != 2 || r.Branch == s.Branch {
		t.Fatalf("rewind did not start a branch: %+v", r)
	}
	rs, _ := h.State(s.ID)
	if rs.Head != 16 || rs.Turns != 2 || rs.Status != StatusIdle {
		t.Fatalf("rewound state %+v", rs)
	}
	old, _ := h.BranchState(s.Branch)
	if old.Head != 22 {
		t.Fatalf("abandoned branch head %d", old.Head)
	}
	if _, err := h.Rewind(s.ID, 99); !errors.Is(err, ErrBadSeq) {
		t.Fatalf("rewind past head: %v", err)
	}
	if _, err := h.Rewind(s.ID, 0); !errors.Is(err, ErrBadSeq) {
		t.Fatalf("rewind to 0: %v", err)
	}
	rep, err := h.Verify("")
	if err != nil || !rep.OK() {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}

func TestResolveSessions(t *testing.T) {
	h := openTest(t, Options{})
	a, _ := h.NewSession(NewSessionOptions{Name: "one"})
	if _, err := h.NewSession(NewSessionOptions{Name: "one"}); err == nil {
		t.Fatal("duplicate name accepted")
	}
	for _, ref := range []string{"one", a.ID, a.ID[:10]} {
		s, err := h.Session(ref)
		if err != nil || s.ID != a.ID {
			t.Fatalf("resolve %q: %v", ref, err)
		}
	}
	if _, err := h.Session("nobody"); !errors.Is(err, ErrNoSession) {
		t.Fatalf("unknown: %v", err)
	}
	if _, err := h.NewSession(NewSessionOptions{Name: "bad name"}); err == nil {
		t.Fatal("name with space accepted")
	}
}

// TestCheckpointEqualsReplay checks the projection restored from a checkpoint plus the tail
// equals a full replay, on a branch and on a fork of it.
func TestCheckpointEqualsReplay(t *testing.T) {
	h := openTest(t, Options{CheckpointEvery: 16})
	s, _ := h.NewSession(NewSessionOptions{Name: "long"})
	h.State(s.ID) // cache it so appends checkpoint as they go
	for i := 0; i < 60; i++ {
		h.Append(s.ID, turn(i)...)
	}
	f, _ := h.Fork(s.ID, 200, ForkOptions{})
	h.Append(f.ID, turn(99)...)
	for _, branch := range []string{s.Branch, f.Branch} {
		cp, n, err := h.LoadState(branch, 0, true)
		if err != nil {
			t.Fatal(err)
		}
		full, m, err := h.LoadState(branch, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		if n >= m || n > 16+7 {
			t.Fatalf("%s: checkpoint load applied %d events, full replay %d", branch, n, m)
		}
		cp.LastActivity, full.LastActivity = full.LastActivity, cp.LastActivity
		if !reflect.DeepEqual(cp, full) {
			t.Fatalf("%s: checkpoint+tail differs from replay:\n%+v\n%+v", branch, cp, full)
		}
	}
}
