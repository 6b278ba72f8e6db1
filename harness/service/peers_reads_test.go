package service

import (
	"context"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/store/etcdtest"
)

// TestFollowingCostsNoReads: a daemon whose clients watch every session and tail another
// daemon's session learns of that daemon's appends from the watch stream itself: following
// 60 appends costs it no range read of the cluster (its own count of requests, what etcd's
// range counter sees of it), however many watchers it serves.
func TestFollowingCostsNoReads(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd cluster")
	}
	t.Parallel()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	// Not the member's /metrics: embedded servers register their counters in the process's
	// one Prometheus registry, so it counts the range requests of every embedded cluster of
	// the package's parallel tests (2.88 per append was seen so). The daemons' own counts are
	// exact.
	testFollowReads(t, c.Endpoints, c.Endpoints, nil, 1.2, 0)
}

// TestRealEtcdFollowingReads: against three etcd server processes, a daemon appending while
// another daemon serves eight watchers of its session costs the cluster at most 1.2 range
// reads per append in all (etcd's own count, on its /metrics); then, with nothing appended
// for 3 s, the two daemons and their watchers cost it no read at all.
func TestRealEtcdFollowingReads(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-member etcd cluster")
	}
	t.Parallel()
	c := etcdtest.StartBinary(t, 3)
	testFollowReads(t, c.Endpoints[:1], c.Endpoints[1:], c.Ranges, 1.2, 3*time.Second)
}

// testFollowReads is the body of the follower-reads tests: alpha on endpoints a, beta on b;
// ranges reads the cluster's own count of range requests (nil: the two daemons' own counts),
// of which at most limit per append are allowed. Beta, the follower, must make none at all.
// When idle is not 0, the count must then not move while nothing is appended for that long
// (a window observed, not a wait for something).
func testFollowReads(t *testing.T, a, b []string, ranges func() (int64, error), limit float64, idle time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ha, sa := daemonOn(t, a, "alpha")
	hb, sb := daemonOn(t, b, "beta")
	if ranges == nil {
		ranges = func() (int64, error) { return ha.Store().Reads() + hb.Store().Reads(), nil }
	}
	s1, err := sa.NewSession(ctx, api.NewSessionRequest{Name: "one", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	rec := harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: "hello"})
	evs, err := ha.AppendOn(s1.ID, s1.Branch, rec)
	if err != nil {
		t.Fatal(err)
	}
	var watchers []*api.Watcher
	for i := 0; i < 4; i++ { // apps: every session's notices, and a tail of alpha's session
		all, err := sb.Watch(ctx, api.WatchRequest{Client: "app"})
		if err != nil {
			t.Fatal(err)
		}
		tail, err := sb.Watch(ctx, api.WatchRequest{Session: s1.ID, After: evs[0].Seq, Client: "tail"})
		if err != nil {
			t.Fatal(err)
		}
		defer all.Close()
		defer tail.Close()
		watchers = append(watchers, all, tail)
	}
	// beta knows alpha's session once one notice about it arrived (its peer watch tracks it)
	waitSeq := func(w *api.Watcher, seq uint64) {
		t.Helper()
		for {
			select {
			case n, ok := <-w.C:
				if !ok {
					t.Fatalf("watch ended: %v", w.Err())
				}
				for _, e := range n.Events {
					if e.Branch == s1.Branch && e.Seq >= seq {
						return
					}
				}
			case <-ctx.Done():
				t.Fatalf("seq %d never reached beta", seq)
			}
		}
	}
	last, err := ha.AppendOn(s1.ID, s1.Branch, rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range watchers {
		waitSeq(w, last[0].Seq)
	}
	// beta's one look at alpha's new session for conflicts (reads, once) is done before the
	// count starts: it runs on its own, and under load could still be running
	if err := sb.settleConflicts(ctx); err != nil {
		t.Fatal(err)
	}
	const n = 60
	before := hb.Store().Reads()
	cluster0, err := ranges()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if last, err = ha.AppendOn(s1.ID, s1.Branch, rec); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range watchers {
		waitSeq(w, last[0].Seq)
	}
	if reads := hb.Store().Reads() - before; reads > 0 {
		t.Fatalf("beta made %d range reads to follow %d appends of alpha (%.2f per append)", reads, n, float64(reads)/n)
	}
	cluster1, err := ranges()
	if err != nil {
		t.Fatal(err)
	}
	if per := float64(cluster1-cluster0) / n; per > limit {
		t.Fatalf("the cluster served %d range reads for %d appends (%.2f per append; at most %.1f)", cluster1-cluster0, n, per, limit)
	} else {
		t.Logf("the cluster served %.2f range reads per append", per)
	}
	if idle == 0 {
		return
	}
	quiet0, err := ranges()
	if err != nil {
		t.Fatal(err)
	}
	ownA, ownB := ha.Store().Reads(), hb.Store().Reads()
	select {
	case <-time.After(idle):
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	quiet1, err := ranges()
	if err != nil {
		t.Fatal(err)
	}
	if quiet1 != quiet0 {
		t.Fatalf("with nothing appended for %v the cluster served %d range reads (alpha made %d, beta %d)",
			idle, quiet1-quiet0, ha.Store().Reads()-ownA, hb.Store().Reads()-ownB)
	}
}
