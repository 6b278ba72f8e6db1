package store

import (
	"fmt"
	"testing"
)

// confCheckpointRetention checkpoints a 2,000-event branch every 16 events, pruning after each
// as the harness does: far fewer are kept, the newest four among them, each kept one reads
// back whole, and the state at every seq (the branch's, and a fork's that starts from it)
// finds a checkpoint at most about a quarter of its distance from the head before it — on
// the store as written and reopened.
func confCheckpointRetention(t *testing.T, be backend) {
	s := be.open(t)
	s.NewBranch("p")
	mustAppend(t, s, "p", 2000, 200)
	pruned := 0
	for at := uint64(16); at <= 2000; at += 16 {
		if err := s.PutCheckpoint("view", "p", at, []byte(fmt.Sprint("p@", at))); err != nil {
			t.Fatal(err)
		}
		n, err := s.PruneCheckpoints("view", "p")
		if err != nil {
			t.Fatalf("prune at %d: %v", at, err)
		}
		pruned += n
	}
	s.Fork("k", "p", 1000)
	mustAppend(t, s, "k", 10, 10)
	check := func(s *Store) {
		t.Helper()
		kept, err := s.checkpointSeqs("view", "p")
		if err != nil {
			t.Fatal(err)
		}
		if len(kept)+pruned != 125 || len(kept) > 40 {
			t.Fatalf("%d checkpoints kept, %d pruned, of 125", len(kept), pruned)
		}
		for i, at := range []uint64{1952, 1968, 1984, 2000} {
			if kept[len(kept)-4+i] != at {
				t.Fatalf("newest four not kept: %v", kept)
			}
		}
		err = s.View(func(tx *Tx) error {
			for at := uint64(16); at <= 2000; at++ {
				seq, blob, ok, err := tx.LatestCheckpoint("view", "p", at)
				if err != nil || !ok || seq > at || string(blob) != fmt.Sprint("p@", seq) {
					return fmt.Errorf("state at %d: checkpoint %d %q %v %v", at, seq, blob, ok, err)
				}
				if at-seq > (2000-at)/3+32 {
					return fmt.Errorf("state at %d replays from %d: %d events", at, seq, at-seq)
				}
			}
			seq, _, ok, err := tx.LatestCheckpoint("view", "k", 0)
			if err != nil || !ok || seq > 1000 || 1000-seq > 1000/3+32 {
				return fmt.Errorf("fork at 1000 opens from %d %v %v", seq, ok, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	check(s)
	check(be.reopen(t, s))
}
