package store

import (
	"fmt"
	"testing"
)

// TestRealEtcdHeadReplacedMidTransaction: a transaction reads a branch's head from what the
// engine remembers of its own last commit, and before it reads the last event another commit
// (two groups are in flight at once) appends to the branch and replaces what is remembered.
// The transaction sees one head and its event, runs again on its commit's conflict, and both
// appends land; it never reads the two commits' halves as lost events (which made the daemon
// refuse every write as damaged).
func TestRealEtcdHeadReplacedMidTransaction(t *testing.T) {
	c := sharedReal(t)
	t.Parallel()
	s := openNode(t, c.Endpoints, realNS("head-race"), "a", 0)
	if _, err := s.NewBranch("m"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "m", 3, 1) // the engine now remembers m's head
	runs := 0
	err := s.Update(func(tx *Tx) error {
		runs++
		if runs == 1 {
			if _, _, ok, err := tx.headRecord("m"); err != nil || !ok {
				t.Fatalf("head record of m: %v %v", ok, err)
			}
			if len(tx.tx.(*etcdTx).remembered) != 1 {
				t.Fatal("the head was not read from memory: the test does not reach the race")
			}
			done := make(chan error, 1)
			go func() { _, err := s.Append("m", rec(100)); done <- err }()
			if err := <-done; err != nil {
				t.Fatalf("the concurrent append: %v", err)
			}
		}
		_, err := tx.Append("m", rec(200))
		return err
	})
	if err != nil {
		t.Fatalf("append with the head replaced mid-transaction: %v", err)
	}
	if runs < 2 {
		t.Fatalf("the transaction ran %d time(s): its commit did not conflict", runs)
	}
	if err := s.Damaged(); err != nil {
		t.Fatalf("store marked damaged: %v", err)
	}
	head, _, err := s.Head("m")
	if err != nil || head != 5 {
		t.Fatalf("head %d, %v; want 5", head, err)
	}
	if _, err := s.VerifyBranch("m"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append("m", rec(300)); err != nil {
		t.Fatalf("the next append: %v", err)
	}
}

// TestEtcdRememberedHeadNeverGoesBack: two commits to one branch are acknowledged out of the
// order they were applied in (two groups in flight; the first's goroutine is slow to note its
// answer). What the engine remembers stays the newer commit's head: the older one's would
// send the next append to the cluster with a compare bound to fail, and a group with two
// appends to the branch would read its head and the cluster's events as lost events.
func TestEtcdRememberedHeadNeverGoesBack(t *testing.T) {
	e := &etcdEngine{prefix: "exo/v1/t/"}
	headKey := e.bucketPrefix([]string{pathHeads}) + "m"
	commit := func(seq uint64) *etcdTx {
		tx := newEtcdTx(e, true)
		evKey := e.bucketPrefix([]string{pathEvents, "m"}) + fmt.Sprintf("%020d", seq)
		tx.put(evKey, []byte(fmt.Sprintf("event %d", seq)), false)
		tx.put(headKey, append(seqKey(seq), make([]byte, 32)...), false)
		return tx
	}
	older, newer := commit(717), commit(721)
	newer.rememberHeads(11)
	older.rememberHeads(10) // acknowledged last, applied first
	w, ok := e.cachedHead(headKey)
	if !ok || w.rev != 11 || keySeq(w.head[:8]) != 721 || string(w.last) != "event 721" {
		t.Fatalf("remembered %v: head %d at revision %d, last %q; want the newer commit's", ok, keySeq(w.head[:8]), w.rev, w.last)
	}
	commit(722).rememberHeads(12)
	if w, _ := e.cachedHead(headKey); w.rev != 12 {
		t.Fatalf("a newer commit is not remembered: revision %d", w.rev)
	}
}

// TestRealEtcdHeadNewerThanSnapshot: a transaction reads the cluster at one revision, then
// another commit (two groups are in flight at once) appends to a branch and the engine
// remembers its head. The transaction must not take that head from memory: with the events it
// reads at its own, earlier revision, the branch's head would be past its last event, which
// reads as lost events ("event 4 is missing: database is corrupted").
func TestRealEtcdHeadNewerThanSnapshot(t *testing.T) {
	c := sharedReal(t)
	t.Parallel()
	s := openNode(t, c.Endpoints, realNS("head-snapshot"), "a", 0)
	if _, err := s.NewBranch("m"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "m", 3, 1) // the engine now remembers m's head
	runs := 0
	err := s.Update(func(tx *Tx) error {
		runs++
		if runs == 1 {
			if _, err := tx.Branches(); err != nil { // the transaction's revision is now fixed
				return err
			}
			if tx.tx.(*etcdTx).rev == 0 {
				t.Fatal("no revision fixed: the test does not reach the race")
			}
			if _, err := s.Append("m", rec(100), rec(101)); err != nil {
				t.Fatalf("the concurrent append: %v", err)
			}
		}
		n := 0
		for _, err := range tx.Events("m", 0, 0) {
			if err != nil {
				t.Errorf("run %d reads m: %v", runs, err)
				return err
			}
			n++
		}
		if runs == 1 && n != 3 {
			t.Errorf("run 1 read %d events at its revision; want 3", n)
		}
		_, err := tx.Append("m", rec(200))
		return err
	})
	if err != nil {
		t.Fatalf("append: %v", err)
	}
	if err := s.Damaged(); err != nil {
		t.Fatalf("store marked damaged: %v", err)
	}
	if head, _, err := s.Head("m"); err != nil || head != 6 {
		t.Fatalf("head %d, %v; want 6", head, err)
	}
	if _, err := s.VerifyBranch("m"); err != nil {
		t.Fatal(err)
	}
}
