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
	a := openNode(t, c.Endpoints, "compact", "a", 0)
	b := openNode(t, c.Endpoints, "compact", "b", 0)
	from, _ := a.Revision()
	b.NewBranch("br")
	mustAppend(t, b, "br", 50, 5)
	rev, _ := a.Revision()
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints})
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
