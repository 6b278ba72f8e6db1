package harness

import (
	"reflect"
	"testing"

	"exo/harness/eventlog"
	"exo/store"
)

// keptCheckpoints returns the seqs of the Session checkpoints a branch still has, found as the
// newest checkpoint at or before each seq up to head.
func keptCheckpoints(t *testing.T, h *Harness, branch string, head uint64) map[uint64]bool {
	t.Helper()
	kept := map[uint64]bool{}
	err := h.st.View(func(tx *store.Tx) error {
		for seq := uint64(1); seq <= head; seq++ {
			at, _, ok, err := tx.LatestCheckpoint(eventlog.SessionProjection, branch, seq)
			if err != nil {
				return err
			}
			if ok && at <= seq {
				kept[at] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return kept
}

// TestCheckpointsPruned runs a session checkpointed every 8 events for 1,400 events: the
// harness prunes as it checkpoints, so far fewer than the 175 written are kept, the newest
// is the last one due, and the state at every seq (timeline scrubbing) restored from what is
// kept plus the events after it equals a full replay; so does a fork's made afterwards.
func TestCheckpointsPruned(t *testing.T) {
	h := openTest(t, Options{CheckpointEvery: 8})
	s, _ := h.NewSession(NewSessionOptions{Name: "long"})
	h.State(s.ID) // cache it so appends checkpoint as they go
	for i := 0; i < 200; i++ {
		if _, err := h.Append(s.ID, turn(i)...); err != nil {
			t.Fatal(err)
		}
	}
	st, _ := h.State(s.ID)
	kept := keptCheckpoints(t, h, s.Branch, st.Head)
	if len(kept) > 40 || !kept[st.Head/8*8] && !kept[st.Head] {
		t.Fatalf("%d checkpoints kept of %d written (head %d): %v", len(kept), st.Head/8, st.Head, kept)
	}
	for seq := uint64(1); seq <= st.Head; seq += 3 {
		cp, applied, err := h.LoadState(s.Branch, seq, true)
		if err != nil {
			t.Fatal(err)
		}
		full, _, _ := h.LoadState(s.Branch, seq, false)
		cp.LastActivity = full.LastActivity
		if !reflect.DeepEqual(cp, full) {
			t.Fatalf("state at %d from a kept checkpoint differs from a full replay", seq)
		}
		if applied > (st.Head-seq)/3+2*8 {
			t.Fatalf("state at %d replayed %d events (head %d)", seq, applied, st.Head)
		}
	}
	f, err := h.Fork(s.ID, 700, ForkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h.Append(f.ID, turn(999)...)
	fb, _ := h.Session(f.ID)
	cp, _, err := h.LoadState(fb.Branch, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	full, _, _ := h.LoadState(fb.Branch, 0, false)
	cp.LastActivity = full.LastActivity
	if !reflect.DeepEqual(cp, full) {
		t.Fatal("the fork's state from a kept checkpoint differs from a full replay")
	}
}

// TestGCPrunesOldCheckpoints: a session checkpointed before retention existed (every one
// kept) has its surplus counted by a dry run, which drops nothing, and pruned by exo gc; the
// session then opens from what is kept as a full replay does.
func TestGCPrunesOldCheckpoints(t *testing.T) {
	h := openTest(t, Options{CheckpointEvery: 8})
	h.SetKeepCheckpoints(true)
	s, _ := h.NewSession(NewSessionOptions{Name: "old"})
	h.State(s.ID)
	for i := 0; i < 60; i++ {
		if _, err := h.Append(s.ID, turn(i)...); err != nil {
			t.Fatal(err)
		}
	}
	st, _ := h.State(s.ID)
	before := len(keptCheckpoints(t, h, s.Branch, st.Head))
	plan, err := h.GC(true)
	if err != nil || plan.Checkpoints == 0 || plan.Removed {
		t.Fatalf("dry run: %+v %v", plan, err)
	}
	if n := len(keptCheckpoints(t, h, s.Branch, st.Head)); n != before {
		t.Fatalf("the dry run dropped checkpoints: %d of %d left", n, before)
	}
	rep, err := h.GC(false)
	if err != nil || rep.Checkpoints != plan.Checkpoints || len(rep.Problems) > 0 {
		t.Fatalf("gc: %+v %v (plan %d)", rep, err, plan.Checkpoints)
	}
	if n := len(keptCheckpoints(t, h, s.Branch, st.Head)); n != before-rep.Checkpoints {
		t.Fatalf("%d checkpoints left of %d, %d pruned", n, before, rep.Checkpoints)
	}
	if again, _ := h.GC(true); again.Checkpoints != 0 {
		t.Fatalf("still prunable after gc: %d", again.Checkpoints)
	}
	cp, _, err := h.LoadState(s.Branch, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	full, _, _ := h.LoadState(s.Branch, 0, false)
	cp.LastActivity = full.LastActivity
	if !reflect.DeepEqual(cp, full) {
		t.Fatal("after gc the session opens differently from a full replay")
	}
}
