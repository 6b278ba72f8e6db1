package sessions

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"exo/harness/api"
	"exo/harness/eventlog"
	"exo/store"
	"exo/store/etcdtest"
)

// TestPeerWatchBehindTheHead: the peer watch applies a change after the cluster moved on (a
// peer created a session and appended to it before this daemon's watch reached the record's
// put; or a session listed at the watch's start had appends queued behind that start). Every
// head move the watch delivers after it tracks the session is published, with its events:
// none is taken as already seen because the head, read now, is past it. Before, tracking read
// the head and dropped the moves at or below it, so the peer's last events never reached this
// daemon's followers (TestRealEtcdFollowingReads hung on them once session creation got fast).
func TestPeerWatchBehindTheHead(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	open := func(node string) *store.Store {
		s, err := store.OpenEtcd(t.TempDir(), store.EtcdConfig{Endpoints: c.Endpoints, Namespace: "follow", Node: node,
			DialTimeout: 5 * time.Second, RequestTimeout: 15 * time.Second}, store.Options{})
		if err != nil {
			t.Fatalf("open %s: %v", node, err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	alpha, beta := open("alpha"), open("beta")
	log := eventlog.New(beta, eventlog.Options{})
	dir := New(log, nil, Hooks{})
	notices, stop := log.Subscribe(64)
	defer stop()

	for _, how := range []string{"record", "listed"} {
		branch, id := "b-"+how, "s-"+how
		if _, err := alpha.NewBranch(branch); err != nil {
			t.Fatal(err)
		}
		rec := store.Record{Type: "test.event", Actor: "user", Data: json.RawMessage(`{"n":1}`)}
		var moves [][]store.Event
		for i := 0; i < 3; i++ {
			evs, err := alpha.Append(branch, rec)
			if err != nil {
				t.Fatal(err)
			}
			moves = append(moves, evs)
		}
		w := peerWatch{sv: dir, warn: func(err error) { t.Error(err) }, byBranch: map[string]*PeerSession{}, seen: map[string]uint64{}}
		se := api.Session{ID: id, Name: id, Branch: branch}
		if how == "record" { // the record's put, applied once all three appends are committed
			val, _ := json.Marshal(se)
			w.apply(store.Change{Kind: store.ChangeRecord, Bucket: store.Sessions, Node: "alpha", Key: id, Value: val})
		} else { // listed at the watch's start; the last move is still queued behind it
			w.track(&PeerSession{Node: "alpha", Session: &se, Live: true})
		}
		last := moves[2]
		w.apply(store.Change{Kind: store.ChangeHead, Branch: branch, Seq: last[0].Seq, Events: last})
		w.apply(store.Change{Kind: store.ChangeHead, Branch: branch, Seq: last[0].Seq, Events: last}) // delivered again: once
		got := drain(t, log, notices, id)
		if len(got) != 1 || got[0] != last[0].Seq {
			t.Fatalf("%s: the peer's head move to seq %d published %v (want it once)", how, last[0].Seq, got)
		}
		// the next move follows from there without a read
		evs, err := alpha.Append(branch, rec)
		if err != nil {
			t.Fatal(err)
		}
		reads := beta.Reads()
		w.apply(store.Change{Kind: store.ChangeHead, Branch: branch, Seq: evs[0].Seq, Events: evs})
		if got := drain(t, log, notices, id); fmt.Sprint(got) != fmt.Sprint([]uint64{evs[0].Seq}) {
			t.Fatalf("%s: next move published %v", how, got)
		}
		if n := beta.Reads() - reads; n != 0 {
			t.Fatalf("%s: following a carried move cost %d reads", how, n)
		}
		// a gap (a move the watch lost) is read once from the last seq published
		skipped, _ := alpha.Append(branch, rec)
		evs, _ = alpha.Append(branch, rec)
		w.apply(store.Change{Kind: store.ChangeHead, Branch: branch, Seq: evs[0].Seq, Events: evs})
		if got := drain(t, log, notices, id); fmt.Sprint(got) != fmt.Sprint([]uint64{skipped[0].Seq, evs[0].Seq}) {
			t.Fatalf("%s: a gap published %v", how, got)
		}
	}
}

// drain returns the seqs of the events the notices about session id queued so far carry: up
// to a marker notice published after them (one subscriber's notices keep their order).
func drain(t *testing.T, log *eventlog.Log, ch <-chan api.Notice, id string) []uint64 {
	t.Helper()
	marker := "marker-" + eventlog.NewID()
	log.Publish(api.Notice{Session: marker})
	var seqs []uint64
	timeout := time.After(30 * time.Second)
	for {
		select {
		case n := <-ch:
			if n.Session == marker {
				return seqs
			}
			if n.Session != id {
				continue
			}
			for _, e := range n.Events {
				seqs = append(seqs, e.Seq)
			}
		case <-timeout:
			t.Fatal("the marker notice never came")
		}
	}
}
