package store

import (
	"errors"
	"testing"
	"time"

	"exo/store/etcdtest"
)

// TestEtcdQuorumLossIsUnreachable: with two of three members down an append fails with
// ErrUnreachable, the store says it is down, and once quorum is back it says it is up again by
// itself (its lease's keep-alives), and appends go on after what is stored (the refused one
// included when etcd applied its proposal once quorum was back).
func TestEtcdQuorumLossIsUnreachable(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-member etcd cluster")
	}
	t.Parallel()
	c := etcdtest.Start(t, 3, etcdtest.Options{})
	s, err := OpenEtcd(t.TempDir(), EtcdConfig{Endpoints: c.Endpoints[:1], Namespace: "reach", Node: "a", LeaseTTL: 3 * time.Second,
		DialTimeout: 2 * time.Second, RequestTimeout: time.Second}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.NewBranch("b")
	mustAppend(t, s, "b", 3, 3)
	st, changed := s.Reachability()
	if !st.Up || st.Outages != 0 {
		t.Fatalf("a fresh store: %+v", st)
	}
	c.Kill(1)
	c.Kill(2)
	_, err = s.Append("b", rec(4))
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("append without quorum: %v", err)
	}
	<-changed
	st, changed = s.Reachability()
	if st.Up || st.Outages != 1 || !errors.Is(st.Err, ErrUnreachable) {
		t.Fatalf("after a failed append without quorum: %+v", st)
	}
	c.Restart(1)
	for st.Up == false {
		<-changed
		st, changed = s.Reachability()
	}
	if st.Outages != 1 {
		t.Fatalf("back: %+v", st)
	}
	// the refused append may still be applied (etcd keeps its proposal until quorum is back)
	head, _, err := s.Head("b")
	if err != nil || head != 3 && head != 4 {
		t.Fatalf("head after the outage: %d %v", head, err)
	}
	evs, err := s.Append("b", rec(int(head)))
	if err != nil || evs[0].Seq != head+1 {
		t.Fatalf("append after the outage: %v %v", evs, err)
	}
	if rep, err := s.VerifyAll(); err != nil || !rep.OK() {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}

// TestEtcdAppendsReadNothing: appends to a branch this daemon owns take its head from what the
// daemon last committed there: after the first, they cost the cluster no range read; a branch
// another writer moved meanwhile is read again (the commit's compare fails, nothing is lost).
func TestEtcdAppendsReadNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	s := openNode(t, c.Endpoints, "reads", "a", 0)
	s.NewBranch("b")
	mustAppend(t, s, "b", 1, 1)
	before := s.Reads()
	mustAppend(t, s, "b", 100, 1)
	if n := s.Reads() - before; n > 0 {
		t.Fatalf("%d range reads for 100 appends", n)
	}
	// the head moves under the engine's memory (as a rival writer would): the next append
	// conflicts, reads what is stored and goes on after it
	e := s.kv.(*etcdEngine)
	other := openNode(t, c.Endpoints, "reads", "z", 0)
	e.wmu.Lock()
	for k, w := range e.written {
		w.rev-- // as if another revision had written it
		e.written[k] = w
	}
	e.wmu.Unlock()
	evs, err := s.Append("b", rec(101))
	if err != nil || evs[0].Seq != 102 {
		t.Fatalf("append after the head moved: %v %v", evs, err)
	}
	if rep, err := other.VerifyAll(); err != nil || !rep.OK() || rep.Events != 102 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}
