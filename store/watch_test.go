package store

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"exo/store/etcdtest"
)

// TestEtcdWatchSeesOtherDaemon: a daemon sees another's session record and appends live.
func TestEtcdWatchSeesOtherDaemon(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	a := openNode(t, c.Endpoints, "watch", "a", 0)
	b := openNode(t, c.Endpoints, "watch", "b", 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := a.Watch(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	b.PutRecord(Sessions, "s1", []byte(`{"id":"s1"}`))
	b.NewBranch("br")
	mustAppend(t, b, "br", 3, 3)
	var sawRecord, sawHead bool
	deadline := time.After(30 * time.Second) // a loaded machine: the appends and the watch share 2 cores with other tests
	for !sawRecord || !sawHead {
		select {
		case c := <-ch:
			if c.Kind == ChangeRecord && c.Node == "b" && c.Key == "s1" && c.Bucket == Sessions {
				sawRecord = true
			}
			if c.Kind == ChangeHead && c.Branch == "br" && c.Seq == 3 {
				sawHead = true
			}
		case <-deadline:
			t.Fatalf("no change seen: record %v head %v", sawRecord, sawHead)
		}
	}
	peers, err := a.PeerRecords(Sessions)
	if err != nil || len(peers) != 1 || peers[0].Node != "b" || peers[0].Key != "s1" {
		t.Fatalf("peer sessions %+v %v", peers, err)
	}
}

// TestEtcdWatchRelistsAfterCompaction: a watch from a compacted revision re-lists the heads it
// may have missed, then goes on live.
func TestEtcdWatchRelistsAfterCompaction(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	testWatchRelistsAfterCompaction(t, c.Endpoints)
}

// testWatchRelistsAfterCompaction is the body of the compaction tests.
func testWatchRelistsAfterCompaction(t *testing.T, endpoints []string) {
	a := openNode(t, endpoints, "compact", "a", 0)
	b := openNode(t, endpoints, "compact", "b", 0)
	from, _ := a.Revision()
	b.NewBranch("br")
	mustAppend(t, b, "br", 50, 5)
	rev, _ := a.Revision()
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.Compact(context.Background(), rev); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := a.Watch(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(30 * time.Second) // a loaded machine: the appends and the watch share 2 cores with other tests
	for resynced := false; ; {
		select {
		case c := <-ch:
			if c.Kind == ChangeHead && c.Branch == "br" && c.Seq == 50 && c.Resync {
				resynced = true
				mustAppend(t, b, "br", 1, 1)
			}
			if resynced && c.Kind == ChangeHead && c.Branch == "br" && c.Seq == 51 && !c.Resync {
				return
			}
		case <-deadline:
			t.Fatalf("no resync after the compaction (resynced %v)", resynced)
		}
	}
}

// TestEtcdWatchReportsDeletionsAfterCompaction: a daemon's watch is cut off (the only member it
// talks to is down) while another daemon removes a session record and a third daemon leaves,
// and the cluster is compacted past all of it. When the member is back the watch re-lists and
// reports the removed record and the daemon that left as deleted, besides what is still there,
// then goes on live.
func TestEtcdWatchReportsDeletionsAfterCompaction(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd cluster")
	}
	t.Parallel()
	c := etcdtest.Start(t, 3, etcdtest.Options{})
	a := openNode(t, c.Endpoints[:1], "gone", "a", 0)
	b := openNode(t, c.Endpoints[1:], "gone", "b", 0)
	d := openNode(t, c.Endpoints[1:], "gone", "d", 0)
	for _, k := range []string{"s1", "s2"} {
		if err := b.PutRecord(Sessions, k, []byte(`{"id":"`+k+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := a.Watch(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	next := func(want func(Change) bool, what string) {
		t.Helper()
		deadline := time.After(60 * time.Second) // a loaded machine; a member restarting
		for {
			select {
			case c, ok := <-ch:
				if !ok {
					t.Fatalf("the watch ended before %s", what)
				}
				if want(c) {
					return
				}
			case <-deadline:
				t.Fatalf("never saw %s", what)
			}
		}
	}
	b.PutRecord(Sessions, "s3", []byte(`{"id":"s3"}`))
	next(func(c Change) bool { return c.Kind == ChangeRecord && c.Key == "s3" && !c.Resync }, "s3 live")

	c.Kill(0)
	if err := b.DeleteRecord(Sessions, "s1"); err != nil {
		t.Fatal(err)
	}
	b.PutRecord(Sessions, "s4", []byte(`{"id":"s4"}`))
	d.Close() // its lease is revoked: it left
	admin, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints[1:], DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	resp, err := admin.Get(context.Background(), "exo/v1/gone/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Compact(context.Background(), resp.Header.Revision); err != nil {
		t.Fatal(err)
	}
	c.Restart(0)

	var s1Gone, dGone, s4, s2 bool
	next(func(c Change) bool {
		switch {
		case c.Kind == ChangeRecord && c.Key == "s1" && c.Deleted:
			s1Gone = c.Resync
		case c.Kind == ChangeNode && c.Node == "d" && c.Deleted:
			dGone = c.Resync
		case c.Kind == ChangeRecord && c.Key == "s4" && !c.Deleted:
			s4 = c.Resync
		case c.Kind == ChangeRecord && c.Key == "s2" && !c.Deleted:
			s2 = c.Resync
		case c.Kind == ChangeRecord && c.Deleted:
			t.Fatalf("reported deleted though it is there: %+v", c)
		}
		return s1Gone && dGone && s4 && s2
	}, "the re-list with s1 and daemon d deleted")
	b.DeleteRecord(Sessions, "s2")
	next(func(c Change) bool { return c.Kind == ChangeRecord && c.Key == "s2" && c.Deleted && !c.Resync }, "s2 deleted live")
}

// TestEtcdWatchAcrossRestart: the only member goes down and comes back on its data. Its
// revision does not go back, and watches from before the restart (one started while it was
// down) and one made right after it all see a change made once it is back.
func TestEtcdWatchAcrossRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	a := openNode(t, c.Endpoints, "restart", "a", 0)
	b := openNode(t, c.Endpoints, "restart", "b", 0)
	if err := b.PutRecord(Sessions, "s0", []byte(`{"id":"s0"}`)); err != nil {
		t.Fatal(err)
	}
	before, err := a.Revision()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	up, err := a.Watch(ctx, before)
	if err != nil {
		t.Fatal(err)
	}
	c.Kill(0)
	down, err := a.Watch(ctx, before) // from a known revision: starts without the cluster
	if err != nil {
		t.Fatal(err)
	}
	c.Restart(0)
	after, err := a.Revision()
	if err != nil {
		t.Fatalf("revision after the restart: %v", err)
	}
	if after < before {
		t.Fatalf("revision went back from %d to %d across the restart", before, after)
	}
	fresh, err := a.Watch(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.PutRecord(Sessions, "s1", []byte(`{"id":"s1"}`)); err != nil {
		t.Fatalf("write after the restart: %v", err)
	}
	for name, ch := range map[string]<-chan Change{"made before the restart": up, "made while the member was down": down, "made after the restart": fresh} {
		deadline := time.After(60 * time.Second)
	wait:
		for {
			select {
			case c, ok := <-ch:
				if !ok {
					t.Fatalf("the watch %s ended", name)
				}
				if c.Kind == ChangeRecord && c.Node == "b" && c.Key == "s1" {
					break wait
				}
			case <-deadline:
				t.Fatalf("the watch %s never saw s1", name)
			}
		}
	}
}
