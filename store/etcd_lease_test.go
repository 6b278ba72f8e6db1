package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"exo/store/etcdtest"
)

// adminClient is a plain etcd client on the cluster, closed when the test ends.
func adminClient(t *testing.T, endpoints []string) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// ownerLease returns the node and lease holding branch's owner key ("" and 0 when none does).
func ownerLease(t *testing.T, cli *clientv3.Client, s *Store, branch string) (string, clientv3.LeaseID) {
	t.Helper()
	resp, err := cli.Get(context.Background(), s.kv.(*etcdEngine).ownerKey(branch))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) == 0 {
		return "", 0
	}
	return string(resp.Kvs[0].Value), clientv3.LeaseID(resp.Kvs[0].Lease)
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestEtcdLeaseLostRecovers revokes a daemon's lease behind its back (as an expiry during a
// partition does): on its own the daemon gets a new lease and reclaims its branches; appends
// racing the loss, and branches created after it, are written under the new lease; another
// daemon cannot take what it still owns; one new lease is granted however many callers race.
func TestEtcdLeaseLostRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	cli := adminClient(t, c.Endpoints)
	a := openNode(t, c.Endpoints, "lease", "a", 2*time.Second)
	b := openNode(t, c.Endpoints, "lease", "b", 0)
	ea := a.kv.(*etcdEngine)
	if _, err := a.NewBranch("old"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, a, "old", 3, 3)

	// The daemon recovers by itself: its old branch is held again, under a new lease.
	first := ea.currentLease()
	if _, err := cli.Revoke(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	// The owner key is rewritten before the engine takes the new lease as its own (a
	// reclaim comes first), so wait for both: the lease to revoke next is the engine's.
	waitFor(t, "a to reclaim old", 30*time.Second, func() bool {
		node, l := ownerLease(t, cli, a, "old")
		return node == "a" && l != 0 && l != first && ea.currentLease() == l
	})

	// Lost again; this time appends and a new branch race the loss.
	second := ea.currentLease()
	if _, err := cli.Revoke(context.Background(), second); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := a.Append("old", rec(i)); err != nil {
				errs <- fmt.Errorf("append to old: %w", err)
			}
		}()
	}
	if _, err := a.NewBranch("new"); err != nil {
		t.Fatalf("new branch after the lease was lost: %v", err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	mustAppend(t, a, "new", 2, 1)
	live := ea.currentLease()
	for _, br := range []string{"old", "new"} {
		node, l := ownerLease(t, cli, a, br)
		if node != "a" || l == 0 || l != live {
			t.Fatalf("owner key of %s: %q under lease %x, a's live lease %x", br, node, l, live)
		}
		if err := b.Claim(br); !errors.Is(err, ErrNotOwner) {
			t.Fatalf("b claimed %s, which a owns: %v", br, err)
		}
		if _, err := b.Append(br, rec(9)); !errors.Is(err, ErrNotOwner) {
			t.Fatalf("b appended to %s: %v", br, err)
		}
	}
	leases, err := cli.Leases(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(leases.Leases) != 2 { // a's live one and b's: none leaked by racing grants
		t.Fatalf("leases on the cluster: %v", leases.Leases)
	}
	if nodes, _ := b.Nodes(); fmt.Sprint(nodes) != "[a b]" {
		t.Fatalf("live nodes %v", nodes)
	}
	if rep, err := b.VerifyAll(); err != nil || !rep.OK() || rep.Events != 9 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}

// TestEtcdConcurrentEnsureLease: callers racing for a new lease share one grant.
func TestEtcdConcurrentEnsureLease(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	cli := adminClient(t, c.Endpoints)
	a := openNode(t, c.Endpoints, "ensure", "a", 0)
	ea := a.kv.(*etcdEngine)
	old := ea.currentLease()
	ea.dropLease(old) // as if its keep-alive channel had closed
	var wg sync.WaitGroup
	got := make([]clientv3.LeaseID, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := ea.liveLease()
			if err != nil {
				t.Error(err)
			}
			got[i] = l
		}()
	}
	wg.Wait()
	for _, l := range got {
		if l == 0 || l == old || l != got[0] {
			t.Fatalf("leases handed out: %v (old %x)", got, old)
		}
	}
	leases, err := cli.Leases(context.Background())
	if err != nil || len(leases.Leases) != 1 || clientv3.LeaseID(leases.Leases[0].ID) != got[0] {
		t.Fatalf("leases on the cluster: %v %v (want only %x; the old one revoked)", leases, err, got[0])
	}
}

// TestEtcdLeaseAcrossRestart: the cluster's only member is down longer than the daemon's lease
// and comes back on its data (where the lease was kept alive by the restart, while the daemon
// gave it up). The daemon appends to its branch again, under one live lease that holds its
// branches and its registration, with no other lease of its left on the cluster; another
// daemon can take nothing of it.
func TestEtcdLeaseAcrossRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	a := openNode(t, c.Endpoints, "lrestart", "a", 2*time.Second)
	ea := a.kv.(*etcdEngine)
	if _, err := a.NewBranch("mine"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, a, "mine", 3, 3)
	c.Kill(0)
	waitFor(t, "a to give up its lease", 30*time.Second, func() bool { return ea.currentLease() == 0 })
	c.Restart(0)
	waitFor(t, "a to append after the restart", 60*time.Second, func() bool {
		_, err := a.Append("mine", rec(3))
		return err == nil
	})
	cli := adminClient(t, c.Endpoints)
	b := openNode(t, c.Endpoints, "lrestart", "b", 0)
	live := ea.currentLease()
	if node, l := ownerLease(t, cli, a, "mine"); node != "a" || l == 0 || l != live {
		t.Fatalf("owner key of mine: %q under lease %x, a's live lease %x", node, l, live)
	}
	alive, err := cli.Get(context.Background(), ea.aliveKey("a"))
	if err != nil || len(alive.Kvs) != 1 || clientv3.LeaseID(alive.Kvs[0].Lease) != live {
		t.Fatalf("a's registration: %v %v (live lease %x)", alive, err, live)
	}
	waitFor(t, "a's old lease to be revoked", 30*time.Second, func() bool {
		leases, err := cli.Leases(context.Background())
		return err == nil && len(leases.Leases) == 2 // a's live one and b's
	})
	if err := b.Claim("mine"); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("b claimed a's branch after the restart: %v", err)
	}
	if rep, err := b.VerifyAll(); err != nil || !rep.OK() || rep.Events != 4 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}
