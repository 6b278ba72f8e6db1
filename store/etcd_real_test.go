package store

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"exo/store/etcdtest"
)

// The tests against etcd server processes that leave the cluster as they found it share one
// three-member cluster, started by the first of them (each works in its own namespace); the
// ones that kill, pause or fill members start their own.
var shared struct {
	once sync.Once
	c    *etcdtest.BinaryCluster
	err  error
}

// sharedReal returns the package's shared real cluster, starting it on first use.
func sharedReal(tb testing.TB) *etcdtest.BinaryCluster {
	tb.Helper()
	if testing.Short() {
		tb.Skip("starts etcd server processes")
	}
	etcdtest.EtcdBinary(tb) // skips, or fails under EXO_REQUIRE_ETCD, without one
	shared.once.Do(func() { shared.c, shared.err = etcdtest.NewBinary(3, etcdtest.Options{}) })
	if shared.err != nil {
		tb.Fatal(shared.err)
	}
	return shared.c
}

// realRuns numbers the namespaces handed out on the shared cluster.
var realRuns atomic.Int64

// realNS returns a namespace named after base that no other test, nor an earlier run of the
// same test (go test -count=N), used on the shared cluster: its data outlives each test.
func realNS(base string) string { return fmt.Sprintf("%s-%d", base, realRuns.Add(1)) }

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.c != nil {
		shared.c.Stop()
	}
	os.Exit(code)
}

// TestRealEtcdGroupCommit: concurrent appends of sixteen sessions share commits, every one of
// them is stored once, in order, on a chain that verifies; a second daemon's appends to a
// branch it does not own fail with ErrNotOwner while its own appends, queued with them,
// succeed.
func TestRealEtcdGroupCommit(t *testing.T) {
	c := sharedReal(t)
	t.Parallel()
	ns := realNS("group")
	a := openNode(t, c.Endpoints[:1], ns, "a", 0)
	b := openNode(t, c.Endpoints[1:], ns, "b", 0)
	const sessions, per = 16, 25
	for i := range sessions {
		if _, err := a.NewBranch(fmt.Sprint("a", i)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 4 {
		if _, err := b.NewBranch(fmt.Sprint("b", i)); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*sessions*per)
	for i := range sessions {
		wg.Go(func() {
			for j := range per {
				evs, err := a.Append(fmt.Sprint("a", i), rec(j))
				if err != nil {
					errs <- err
					return
				}
				if evs[0].Seq != uint64(j+1) {
					errs <- fmt.Errorf("a%d: event %d stored at %d", i, j, evs[0].Seq)
				}
			}
		})
	}
	for i := range 4 {
		wg.Go(func() { // b's own sessions
			for j := range per {
				if _, err := b.Append(fmt.Sprint("b", i), rec(j)); err != nil {
					errs <- fmt.Errorf("b%d: %w", i, err)
					return
				}
			}
		})
		wg.Go(func() { // b writing where a owns: refused, each time, cleanly
			for j := range per / 5 {
				if _, err := b.Append(fmt.Sprint("a", i), rec(j)); !errors.Is(err, ErrNotOwner) {
					errs <- fmt.Errorf("b appending to a%d: want ErrNotOwner, got %v", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i := range sessions {
		evs, err := b.ReadRange(fmt.Sprint("a", i), 1, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != per {
			t.Fatalf("a%d holds %d events, want %d", i, len(evs), per)
		}
		for j, e := range evs {
			if e.Actor != "user" || string(e.Data) != string(rec(j).Data) {
				t.Fatalf("a%d event %d is %s", i, e.Seq, e.Data)
			}
		}
		if rep, err := b.VerifyBranch(fmt.Sprint("a", i)); err != nil || !rep.OK() {
			t.Fatalf("a%d does not verify: %v %+v", i, err, rep)
		}
	}
	commits, members := a.GroupStats()
	t.Logf("daemon a: %d appends in %d commits", members, commits)
	if members != sessions*per || commits >= members {
		t.Fatalf("daemon a made %d commits for %d appends: nothing was grouped", commits, members)
	}
}

// TestRealEtcdGroupMemberFails: a member of a group whose function fails gets its error and
// the others of its group are committed; a group too large for one commit is committed member
// by member.
func TestRealEtcdGroupMemberFails(t *testing.T) {
	c := sharedReal(t)
	t.Parallel()
	s := openNode(t, c.Endpoints, realNS("group-fail"), "n", 0)
	for i := range 3 {
		if _, err := s.NewBranch(fmt.Sprint("m", i)); err != nil {
			t.Fatal(err)
		}
	}
	// Hold every group commit slot inside a transaction while the next ones queue: they are
	// then committed as one group.
	hold := make(chan struct{})
	first := make(chan error, groupsInFlight)
	for i := range groupsInFlight {
		if _, err := s.NewBranch(fmt.Sprint("h", i)); err != nil {
			t.Fatal(err)
		}
		var once sync.Once
		held := make(chan struct{})
		go func() {
			first <- s.UpdateGrouped(AppendCost(rec(0)), func(tx *Tx) error {
				once.Do(func() {
					close(held)
					<-hold
				})
				_, err := tx.Append(fmt.Sprint("h", i), rec(0))
				return err
			})
		}()
		<-held
	}
	boom := errors.New("boom")
	results := make(chan error, 3)
	for i := range 3 {
		go func() {
			results <- s.UpdateGrouped(AppendCost(rec(i)), func(tx *Tx) error {
				if i == 1 {
					return boom
				}
				_, err := tx.Append(fmt.Sprint("m", i), rec(i))
				return err
			})
		}()
	}
	g := s.group.Load()
	// All three handed over: one taken, waiting for a slot, and two queued behind it.
	waitFor(t, "three transactions queued", 30*time.Second, func() bool { return g.entered.Load() == groupsInFlight+3 && g.queued.Load() == 2 })
	close(hold)
	for range groupsInFlight {
		if err := <-first; err != nil {
			t.Fatal(err)
		}
	}
	var failed, ok int
	for range 3 {
		switch err := <-results; {
		case errors.Is(err, boom):
			failed++
		case err == nil:
			ok++
		default:
			t.Fatalf("unexpected error: %v", err)
		}
	}
	if failed != 1 || ok != 2 {
		t.Fatalf("%d failed and %d committed, want 1 and 2", failed, ok)
	}
	if commits, members := s.GroupStats(); members-commits < 1 {
		t.Fatalf("%d transactions in %d commits: the queued ones were not grouped", members, commits)
	}
	for i, want := range []uint64{1, 0, 1} {
		if seq, _, err := s.Head(fmt.Sprint("m", i)); err != nil || seq != want {
			t.Fatalf("m%d head %d (%v), want %d", i, seq, err, want)
		}
	}
}

// TestRealEtcdGroupAfterClose: a grouped transaction on a closed store, whether grouping had
// started or not, fails with the closed engine's error; it neither hangs nor panics.
func TestRealEtcdGroupAfterClose(t *testing.T) {
	c := sharedReal(t)
	t.Parallel()
	ns := realNS("group-closed")
	for _, started := range []bool{false, true} {
		s, err := OpenEtcd(t.TempDir(), EtcdConfig{Endpoints: c.Endpoints, Namespace: ns, Node: fmt.Sprint("n-", started),
			DialTimeout: 5 * time.Second, RequestTimeout: 15 * time.Second}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if started {
			if _, err := s.NewBranch("m"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Append("m", rec(1)); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		if _, err := s.Append("m", rec(2)); err == nil {
			t.Fatalf("started %v: an append on a closed store succeeded", started)
		}
	}
}
