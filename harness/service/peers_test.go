package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/store/etcdtest"
)

// daemonOn opens a harness and its service as daemon node on the cluster, through the store
// URL a user gives `exo daemon --store`.
func daemonOn(t testing.TB, endpoints []string, node string) (*harness.Harness, *Service) {
	t.Helper()
	url := fmt.Sprintf("etcd://%s/team?node=%s&lease=10s", strings.Join(endpoints, ","), node)
	h, err := harness.Open(t.TempDir(), harness.Options{NoSync: true, Store: url})
	if err != nil {
		t.Fatalf("open daemon %s: %v", node, err)
	}
	s := New(h, Options{})
	t.Cleanup(func() { s.Close(); h.Close() })
	return h, s
}

// peerInfo finds a session in a list.
func peerInfo(all []api.SessionInfo, id string) (api.SessionInfo, bool) {
	for _, in := range all {
		if in.Session.ID == id {
			return in, true
		}
	}
	return api.SessionInfo{}, false
}

// waitPeer waits for a notice about another daemon's session and returns how long it took.
func waitPeer(t *testing.T, w *api.Watcher, id string) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case n, ok := <-w.C:
			if !ok {
				t.Fatalf("watch ended: %v", w.Err())
			}
			if n.Session == id && n.Peer != "" {
				return time.Since(start)
			}
		case <-deadline:
			t.Fatalf("no notice about %s from the other daemon", id)
		}
	}
}

// TestTwoDaemonsSeeEachOther runs two daemons on a three-member cluster: each sees the other's
// sessions live with their state, and one takes over a session of the other once it stopped
// (a session whose workspace is gone is orphaned instead).
func TestTwoDaemonsSeeEachOther(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-member etcd cluster")
	}
	t.Parallel()
	ctx := context.Background()
	c := etcdtest.Start(t, 3, etcdtest.Options{})
	ha, sa := daemonOn(t, c.Endpoints[:1], "alpha")
	hb, sb := daemonOn(t, c.Endpoints[1:], "beta")
	w, err := sb.Watch(ctx, api.WatchRequest{Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ws, gone := t.TempDir(), t.TempDir()
	s1, err := sa.NewSession(ctx, api.NewSessionRequest{Name: "one", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("new session seen by the other daemon after %v", waitPeer(t, w, s1.ID))
	rec := harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: "hello from alpha"})
	evs, err := ha.AppendOn(s1.ID, s1.Branch, rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("append seen by the other daemon after %v", waitPeer(t, w, s1.ID))
	all, err := sb.ListSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	in, ok := peerInfo(all, s1.ID)
	if !ok || in.Node != "alpha" || !in.Live || in.Head != evs[0].Seq {
		t.Fatalf("beta's view of alpha's session: %+v (found %v)", in, ok)
	}
	if _, err := hb.AppendOn(s1.ID, s1.Branch, rec); err == nil {
		t.Fatal("beta appended to alpha's session")
	}
	s2, err := sa.NewSession(ctx, api.NewSessionRequest{Name: "two", Workspace: gone})
	if err != nil {
		t.Fatal(err)
	}
	waitPeer(t, w, s2.ID)
	if _, err := sb.TakeOver(ctx, "one"); !errors.Is(err, harness.ErrNotOwner) {
		t.Fatalf("take over from a live daemon: %v", err)
	}
	if se, err := sb.Session(ctx, "one"); err != nil || se.ID != s1.ID || se.Node != "alpha" {
		t.Fatalf("beta resolves alpha's session: %+v %v", se, err)
	}
	if _, err := sb.Say(ctx, "one", "hi", "test"); !errors.Is(err, harness.ErrNotOwner) || !strings.Contains(err.Error(), "runs on daemon alpha") {
		t.Fatalf("beta writes to alpha's live session: %v", err)
	}
	sa.Close()
	ha.Close() // alpha stops: its lease is revoked
	os.RemoveAll(gone)
	all, _ = sb.ListSessions(ctx)
	if in, _ := peerInfo(all, s1.ID); in.Live || in.Orphaned {
		t.Fatalf("alpha's session after alpha stopped: %+v", in)
	}
	if in, _ := peerInfo(all, s2.ID); !in.Orphaned {
		t.Fatalf("a session whose workspace is gone is not orphaned: %+v", in)
	}
	if _, err := sb.TakeOver(ctx, s2.ID); !errors.Is(err, harness.ErrOrphaned) {
		t.Fatalf("take over an orphan: %v", err)
	}
	if se, err := sb.TakeOver(ctx, s1.ID[:12]); err != nil || se.ID != s1.ID || se.Node != "" {
		t.Fatalf("take over: %+v %v", se, err)
	}
	if _, err := sb.TakeOver(ctx, s1.ID); !errors.Is(err, harness.ErrNoSession) {
		t.Fatalf("take over a session already ours: %v", err)
	}
	if _, err := hb.AppendOn(s1.ID, s1.Branch, rec); err != nil {
		t.Fatalf("append after the take-over: %v", err)
	}
	all, _ = sb.ListSessions(ctx)
	if in, ok := peerInfo(all, s1.ID); !ok || in.Node != "" || in.Head != evs[0].Seq+1 {
		t.Fatalf("taken-over session: %+v", in)
	}
}

// BenchmarkPeerNotice measures how long an event one daemon appends takes to reach another
// daemon's watchers (what refreshes its siblings pane), on a three-member loopback cluster.
func BenchmarkPeerNotice(b *testing.B) {
	c := etcdtest.Start(b, 3, etcdtest.Options{Fsync: true})
	ha, sa := benchDaemon(b, c.Endpoints[:1], "alpha")
	_, sb := benchDaemon(b, c.Endpoints[1:], "beta")
	ctx := context.Background()
	w, err := sb.Watch(ctx, api.WatchRequest{Client: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	s1, err := sa.NewSession(ctx, api.NewSessionRequest{Name: "one", Workspace: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	for len(w.C) > 0 {
		<-w.C
	}
	rec := harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: "hello"})
	var worst, after time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := ha.AppendOn(s1.ID, s1.Branch, rec); err != nil {
			b.Fatal(err)
		}
		committed := time.Now()
		for n := range w.C {
			if n.Session == s1.ID && n.Peer != "" {
				break
			}
		}
		worst = max(worst, time.Since(start))
		after += time.Since(committed)
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
	b.ReportMetric(float64(after.Microseconds())/1000/float64(b.N), "ms-after-commit")
}

// benchDaemon is daemonOn for benchmarks.
func benchDaemon(b *testing.B, endpoints []string, node string) (*harness.Harness, *Service) {
	url := fmt.Sprintf("etcd://%s/bench?node=%s", strings.Join(endpoints, ","), node)
	h, err := harness.Open(b.TempDir(), harness.Options{Store: url})
	if err != nil {
		b.Fatalf("open daemon %s: %v", node, err)
	}
	s := New(h, Options{})
	b.Cleanup(func() { s.Close(); h.Close() })
	return h, s
}
