package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// TestRealEtcdForksAndFirstAppends, on three etcd server processes with two daemons: the two
// fork one name at once and one wins; the winner's first appends, from several goroutines at
// once, land once each on one chain while the other daemon's are refused (ErrNotOwner); forks
// and first appends of distinct branches by both daemons at once all land; a peer's watch
// hears no head at a fork and the first append's head with its events; each daemon reads
// every head as the other wrote it, and everything verifies.
func TestRealEtcdForksAndFirstAppends(t *testing.T) {
	c := sharedReal(t)
	t.Parallel()
	ns := realNS("lazy-heads")
	a := openNode(t, c.Endpoints[:1], ns, "a", 0)
	b := openNode(t, c.Endpoints[1:], ns, "b", 0)
	if _, err := a.NewBranch("m"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, a, "m", 30, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch, err := b.Watch(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	won := make(chan *Store, 2)
	errs := make(chan error, 64)
	for _, s := range []*Store{a, b} {
		wg.Go(func() {
			switch _, err := s.Fork("x", "m", 12); {
			case err == nil:
				won <- s
			case !errors.Is(err, ErrBranchExists):
				errs <- fmt.Errorf("fork x: %w", err)
			}
		})
	}
	wg.Wait()
	close(won)
	if len(won) != 1 {
		t.Fatalf("%d daemons forked x", len(won))
	}
	owner := <-won
	other := a
	if owner == a {
		other = b
	}
	const workers, per = 4, 3
	for w := range workers {
		wg.Go(func() {
			for i := range per {
				if _, err := owner.Append("x", rec(100*w+i)); err != nil {
					errs <- fmt.Errorf("owner's append to x: %w", err)
				}
			}
		})
	}
	wg.Go(func() {
		if _, err := other.Append("x", rec(1)); !errors.Is(err, ErrNotOwner) {
			errs <- fmt.Errorf("the other daemon's append to x: want ErrNotOwner, got %v", err)
		}
	})
	for i := range 6 {
		s := []*Store{a, b}[i%2]
		wg.Go(func() {
			id := fmt.Sprint("d", i)
			if _, err := s.Fork(id, "m", uint64(i+1)); err != nil {
				errs <- err
				return
			}
			if _, err := s.Append(id, rec(i)); err != nil {
				errs <- fmt.Errorf("first append to %s: %w", id, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	for _, s := range []*Store{a, b} {
		if seq, _, err := s.Head("x"); err != nil || seq != 12+workers*per {
			t.Fatalf("head of x from %s: %d %v", s.Node(), seq, err)
		}
		for i := range 6 {
			if seq, _, err := s.Head(fmt.Sprint("d", i)); err != nil || seq != uint64(i+2) {
				t.Fatalf("head of d%d from %s: %d %v", i, s.Node(), seq, err)
			}
		}
		if rep, err := s.VerifyAll(); err != nil || !rep.OK() || rep.Branches != 8 {
			t.Fatalf("verify from %s: %+v %v", s.Node(), rep, err)
		}
	}
	// The watch: no head at x's fork (12), then x's heads from its first append on.
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ch := <-watch:
			if ch.Kind != ChangeHead || ch.Branch != "x" {
				continue
			}
			if ch.Seq <= 12 || len(ch.Events) == 0 || ch.Events[len(ch.Events)-1].Seq != ch.Seq {
				t.Fatalf("head change of x: seq %d with %d events", ch.Seq, len(ch.Events))
			}
			if ch.Seq == 12+workers*per {
				return
			}
		case <-deadline:
			t.Fatal("the watch never reported x's last head")
		}
	}
}

// TestEtcdFirstAppendCompares: on etcd, a first append's commit requires the head key absent
// and the branch record at its first version; a branch record rewritten behind the daemon's
// back makes the first append fail as damage, at once, not run again for ever.
func TestEtcdFirstAppendCompares(t *testing.T) {
	t.Parallel()
	be := etcdBackend(t)
	s := be.open(t)
	if _, err := s.NewBranch("m"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "m", 5, 5)
	if _, err := s.Fork("f", "m", 3); err != nil {
		t.Fatal(err)
	}
	e := s.kv.(*etcdEngine)
	headKey := e.bucketPrefix([]string{pathHeads}) + "f"
	branchKey := e.bucketPrefix([]string{pathBranches}) + "f"
	var cmps []clientv3.Cmp
	err := s.Update(func(tx *Tx) error {
		if _, err := tx.Append("f", rec(1)); err != nil {
			return err
		}
		cmps = append(cmps[:0], tx.tx.(*etcdTx).cmps...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var headAbsent, recordKept bool
	for _, cmp := range cmps {
		c := cmp.GetCompare()
		switch {
		case string(c.Key) == headKey && c.Target == pb.Compare_MOD && c.Result == pb.Compare_EQUAL:
			headAbsent = c.TargetUnion.(*pb.Compare_ModRevision).ModRevision == 0
		case string(c.Key) == branchKey && c.Target == pb.Compare_VERSION && c.Result == pb.Compare_EQUAL:
			recordKept = c.TargetUnion.(*pb.Compare_Version).Version == 1
		}
	}
	if !headAbsent || !recordKept {
		t.Fatalf("first append's compares: head key absent %v, branch record kept %v (%d compares)", headAbsent, recordKept, len(cmps))
	}
	if _, err := s.Fork("g", "m", 2); err != nil {
		t.Fatal(err)
	}
	var raw []byte
	s.kv.view(func(tx kvTx) error {
		b, _, _ := tx.bucket(pathBranches)
		v, err := b.get([]byte("g"))
		raw = append([]byte(nil), v...)
		return err
	})
	rawPut(t, s, []byte("g"), raw, pathBranches) // the same bytes, written again
	_, err = s.Append("g", rec(1))
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "rewritten") {
		t.Fatalf("first append after its branch record was rewritten: %v", err)
	}
}
