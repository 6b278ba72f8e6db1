package store

import (
	"context"
	"testing"
	"time"

	"exo/store/etcdtest"
)

// TestEtcdWatchCarriesEvents: a head change brings the events its transaction appended,
// decoded from the watch itself, identical to what a read returns; a claimed branch is
// reported as an owner change naming the daemon; following costs the watcher no read.
func TestEtcdWatchCarriesEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	a := openNode(t, c.Endpoints, "carry", "a", 0)
	b := openNode(t, c.Endpoints, "carry", "b", 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := a.Watch(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	reads := int64(-1) // counted from the first change: the watch's own start lists what exists
	b.NewBranch("br")
	mustAppend(t, b, "br", 7, 3) // three transactions: 3, 3 and 1 events
	var got []Event
	owner := false
	deadline := time.After(30 * time.Second)
	for len(got) < 7 || !owner {
		select {
		case c := <-ch:
			if reads < 0 {
				reads = a.Reads()
			}
			if c.Kind == ChangeOwner && c.Branch == "br" && c.Node == "b" && !c.Deleted {
				owner = true
			}
			if c.Kind == ChangeHead && c.Branch == "br" && c.Seq > 0 { // 0: the new branch, empty
				if len(c.Events) == 0 || c.Events[len(c.Events)-1].Seq != c.Seq {
					t.Fatalf("head %d came with events %v", c.Seq, c.Events)
				}
				got = append(got, c.Events...)
			}
		case <-deadline:
			t.Fatalf("saw %d events, owner change %v", len(got), owner)
		}
	}
	if n := a.Reads() - reads; n != 0 {
		t.Fatalf("the watcher made %d reads to follow", n)
	}
	want, err := a.ReadRange("br", 1, 7)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i].Seq != want[i].Seq || got[i].Hash != want[i].Hash || got[i].Type != want[i].Type || string(got[i].Data) != string(want[i].Data) {
			t.Fatalf("event %d from the watch %+v, read %+v", i+1, got[i], want[i])
		}
	}
}
