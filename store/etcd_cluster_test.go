package store

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"exo/store/etcdtest"
)

// openNode opens a store as daemon node on the cluster at endpoints, in namespace ns.
func openNode(tb testing.TB, endpoints []string, ns, node string, ttl time.Duration) *Store {
	tb.Helper()
	s, err := OpenEtcd(tb.TempDir(), EtcdConfig{Endpoints: endpoints, Namespace: ns, Node: node, LeaseTTL: ttl,
		DialTimeout: 5 * time.Second, RequestTimeout: 15 * time.Second}, Options{})
	if err != nil {
		tb.Fatalf("open %s: %v", node, err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// TestEtcdOwnershipFence: only the daemon that owns a branch appends to it; the others read
// it, and may claim it once the owner is gone.
func TestEtcdOwnershipFence(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	a := openNode(t, c.Endpoints, "fence", "a", 0)
	b := openNode(t, c.Endpoints, "fence", "b", 0)
	if _, err := openNodeErr(t.TempDir(), c.Endpoints, "fence", "a"); !errors.Is(err, ErrNodeInUse) || errors.Is(err, ErrLocked) || strings.Contains(err.Error(), "home is locked") {
		t.Fatalf("a second live daemon named a: %v", err)
	}
	a.NewBranch("s1")
	mustAppend(t, a, "s1", 5, 5)
	if _, err := b.Append("s1", rec(9)); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("b appended to a's branch: %v", err)
	}
	evs, err := b.ReadRange("s1", 0, 0)
	if err != nil || len(evs) != 5 {
		t.Fatalf("b reads a's branch: %d %v", len(evs), err)
	}
	if err := b.Claim("s1"); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("b claimed a live daemon's branch: %v", err)
	}
	if owner, _ := b.Owner("s1"); owner != "a" {
		t.Fatalf("owner %q", owner)
	}
	// b forks a's branch: the fork is b's.
	if _, err := b.Fork("s1-b", "s1", 3); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, b, "s1-b", 2, 2)
	if _, err := a.Append("s1-b", rec(1)); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("a appended to b's fork: %v", err)
	}
	a.Close() // a stops: its lease is revoked
	if err := b.Claim("s1"); err != nil {
		t.Fatalf("take over after a stopped: %v", err)
	}
	mustAppend(t, b, "s1", 2, 2)
	if rep, err := b.VerifyAll(); err != nil || !rep.OK() || rep.Events != 9 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
	nodes, _ := b.Nodes()
	if fmt.Sprint(nodes) != "[b]" {
		t.Fatalf("live nodes %v", nodes)
	}
}

// openNodeErr opens a store and returns the error instead of failing.
func openNodeErr(home string, endpoints []string, ns, node string) (*Store, error) {
	return OpenEtcd(home, EtcdConfig{Endpoints: endpoints, Namespace: ns, Node: node,
		DialTimeout: 5 * time.Second, RequestTimeout: 15 * time.Second}, Options{})
}

// TestEtcdBatchesWithinLimits appends a batch larger than one etcd transaction allows.
func TestEtcdBatchesWithinLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	s := openNode(t, c.Endpoints, "batch", "n", 0)
	s.NewBranch("m")
	recs := make([]Record, 1000)
	for i := range recs {
		recs[i] = rec(i)
	}
	recs[500].Data = []byte(fmt.Sprintf(`{"n":500,"big":%q}`, strings.Repeat("x", 700<<10)))
	evs, err := s.Append("m", recs...)
	if err != nil || len(evs) != 1000 || evs[999].Seq != 1000 {
		t.Fatalf("append 1000: %d %v", len(evs), err)
	}
	if rep, err := s.VerifyAll(); err != nil || !rep.OK() || rep.Events != 1000 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}

// TestEtcdNoSpace fills a cluster with a small quota: the refused append says NOSPACE, and
// every acknowledged event is still there and verifies.
func TestEtcdNoSpace(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	c := etcdtest.Start(t, 1, etcdtest.Options{QuotaBytes: 2 << 20})
	s := openNode(t, c.Endpoints, "quota", "n", 0)
	s.NewBranch("m")
	// Random bytes: events are stored compressed, and repeated text would never fill the quota.
	noise := make([]byte, 150<<10)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	big := Record{Type: "blob", Actor: "t", Data: []byte(fmt.Sprintf(`{"x":%q}`, base64.StdEncoding.EncodeToString(noise)))}
	acked := uint64(0)
	var err error
	for range 100 {
		var evs []Event
		if evs, err = s.Append("m", big); err != nil {
			break
		}
		acked = evs[0].Seq
	}
	if !errors.Is(err, ErrNoSpace) || !strings.Contains(err.Error(), "nothing of it was stored") || !strings.Contains(err.Error(), "etcdctl alarm disarm") {
		t.Fatalf("append past the quota: %v (acked %d)", err, acked)
	}
	head, _, herr := s.Head("m")
	if herr != nil || head != acked {
		t.Fatalf("head %d after NOSPACE, acknowledged %d: %v", head, acked, herr)
	}
	if rep, err := s.VerifyBranch("m"); err != nil || !rep.OK() || rep.Events != int(acked) {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}

// TestEtcdMemberKilledMidAppend kills the leader of a three-member cluster while a daemon
// appends (an election follows): appends go on through the others and nothing acknowledged is
// lost.
func TestEtcdMemberKilledMidAppend(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-member etcd cluster")
	}
	t.Parallel()
	c := etcdtest.Start(t, 3, etcdtest.Options{})
	testMemberKilledMidAppend(t, c.Endpoints, c.Leader, c.Kill)
}

// testMemberKilledMidAppend is the body of the member-killed tests: leader names the member
// that leads, kill kills one.
func testMemberKilledMidAppend(t *testing.T, endpoints []string, leader func() int, kill func(int)) {
	s := openNode(t, endpoints, "kill", "n", 0)
	s.NewBranch("m")
	var (
		mu    sync.Mutex
		acked uint64
		fails int
	)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			evs, err := s.Append("m", rec(i), rec(i))
			mu.Lock()
			if err == nil {
				acked = evs[1].Seq
			} else {
				fails++
			}
			mu.Unlock()
		}
	}()
	waitAcked := func(n uint64) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			mu.Lock()
			a := acked
			mu.Unlock()
			if a >= n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("appends stalled at %d (want %d)", a, n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitAcked(20)
	led := leader()
	kill(led)
	if now := leader(); now == led {
		t.Fatalf("member %d still leads after it was killed", led)
	}
	mu.Lock()
	after := acked
	mu.Unlock()
	waitAcked(after + 40)
	close(stop)
	<-done
	head, _, err := s.Head("m")
	if err != nil || head < acked {
		t.Fatalf("head %d, acknowledged %d: %v", head, acked, err)
	}
	if rep, err := s.VerifyAll(); err != nil || !rep.OK() {
		t.Fatalf("verify: %+v %v", rep, err)
	}
	t.Logf("acknowledged %d events, %d appends failed while the member went away", acked, fails)
}

// TestEtcdPartitionedDaemonLosesLease cuts a daemon off the cluster (the only member it
// talks to dies): its lease expires, another daemon takes its session over, and the cut-off
// daemon's appends are refused once it is back.
func TestEtcdPartitionedDaemonLosesLease(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-member etcd cluster")
	}
	t.Parallel()
	c := etcdtest.Start(t, 3, etcdtest.Options{})
	testPartitionedDaemon(t, c.Endpoints, c.Kill, c.Restart)
}

// testPartitionedDaemon is the body of the partition tests: cut(0) cuts the first daemon off
// the cluster (the only member it talks to goes away), heal(0) brings it back.
func testPartitionedDaemon(t *testing.T, endpoints []string, cut, heal func(int)) {
	a := openNode(t, endpoints[:1], "part", "a", 2*time.Second)
	b := openNode(t, endpoints[1:], "part", "b", 0) // the default 10s: b must keep its lease under load
	a.NewBranch("s")
	a.NewBranch("s2")
	mustAppend(t, a, "s", 10, 5)
	mustAppend(t, a, "s2", 2, 2)
	cut(0) // a reaches no member now
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := b.Claim("s")
		if err == nil {
			break
		}
		// refused while a's lease lives; unreachable while the cluster elects a leader (the
		// member cut off may have led it: "request timed out, possibly due to previous leader
		// failure" was seen under load)
		if !errors.Is(err, ErrNotOwner) && !errors.Is(err, ErrUnreachable) || time.Now().After(deadline) {
			t.Fatalf("b takes over: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	mustAppend(t, b, "s", 3, 3)
	heal(0)
	if _, err := a.Append("s", rec(99)); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("the partitioned daemon appended after losing its lease: %v", err)
	}
	evs, err := a.ReadRange("s", 0, 0)
	if err != nil || len(evs) != 13 {
		t.Fatalf("a reads %d events: %v", len(evs), err)
	}
	// a got a new lease once back and reclaimed what nobody took: s2 is still a's.
	deadline = time.Now().Add(30 * time.Second)
	for {
		_, err := a.Append("s2", rec(3))
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a appends to its own s2 after the partition: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if _, err := a.NewBranch("s3"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, a, "s3", 2, 2)
	for _, br := range []string{"s2", "s3"} {
		if err := b.Claim(br); !errors.Is(err, ErrNotOwner) {
			t.Fatalf("b claimed %s, which a owns again: %v", br, err)
		}
	}
	if rep, err := b.VerifyAll(); err != nil || !rep.OK() || rep.Events != 18 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}

// TestEtcdAppliedAnyway: the read-back that tells a write etcd refused with NOSPACE after
// applying it (it applies the write that crosses its quota, then answers NOSPACE) from one it
// refused before proposing it. Unwritten keys, or keys last written before the transaction
// read, are not its write; keys holding its values at one revision past that are.
func TestEtcdAppliedAnyway(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	s := openNode(t, c.Endpoints, "applied", "n", 0)
	e := s.kv.(*etcdEngine)
	k1, k2 := e.prefix+"probe/1", e.prefix+"probe/2"
	tx := newEtcdTx(e, true)
	tx.put(k1, []byte("one"), false)
	tx.put(k2, []byte("two"), false)
	if ok, err := tx.appliedAnyway(); err != nil || ok {
		t.Fatalf("before the write: %v %v", ok, err)
	}
	if err := tx.commit(); err != nil {
		t.Fatal(err)
	}
	if ok, err := tx.appliedAnyway(); err != nil || !ok {
		t.Fatalf("after the write: %v %v", ok, err)
	}
	// the same values, written by an earlier transaction than this one read at: not its write
	resp, err := e.cli.Get(context.Background(), k1)
	if err != nil {
		t.Fatal(err)
	}
	again := newEtcdTx(e, true)
	again.rev = resp.Header.Revision
	again.put(k1, []byte("one"), false)
	again.put(k2, []byte("two"), false)
	if ok, err := again.appliedAnyway(); err != nil || ok {
		t.Fatalf("values an earlier write left: %v %v", ok, err)
	}
	// one key of two written: not this transaction (it writes all at once)
	part := newEtcdTx(e, true)
	part.put(k1, []byte("one"), false)
	part.put(k2, []byte("changed"), false)
	if ok, err := part.appliedAnyway(); err != nil || ok {
		t.Fatalf("a key that holds another value: %v %v", ok, err)
	}
}
