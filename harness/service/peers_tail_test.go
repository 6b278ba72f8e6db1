package service

import (
	"context"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/store/etcdtest"
)

// TestTailOtherDaemonsSession tails, on beta, a session alpha runs: the committed events come
// first, then each one alpha appends, in order and without gaps; beta still cannot write to it.
func TestTailOtherDaemonsSession(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd cluster")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	ha, sa := daemonOn(t, c.Endpoints, "alpha")
	_, sb := daemonOn(t, c.Endpoints, "beta")
	s1, err := sa.NewSession(ctx, api.NewSessionRequest{Name: "one", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	rec := harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: "before the tail"})
	first, err := ha.AppendOn(s1.ID, s1.Branch, rec)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sb.Watch(ctx, api.WatchRequest{Session: "one", Attach: s1.ID, Client: "tail"})
	if err != nil {
		t.Fatalf("tail another daemon's session: %v", err)
	}
	defer w.Close()
	const more = 20
	go func() {
		for i := 0; i < more; i++ {
			if _, err := ha.AppendOn(s1.ID, s1.Branch, rec); err != nil {
				t.Errorf("append %d: %v", i, err)
				return
			}
		}
	}()
	want := first[0].Seq + more
	var next uint64 = 1
	for next <= want {
		select {
		case n, ok := <-w.C:
			if !ok {
				t.Fatalf("tail ended at seq %d of %d: %v", next-1, want, w.Err())
			}
			if n.Session != "" && n.Session != s1.ID && len(n.Events) > 0 {
				t.Fatalf("tail of %s got events of %s", s1.ID, n.Session)
			}
			for _, e := range n.Events {
				if e.Seq != next {
					t.Fatalf("tail: seq %d after %d", e.Seq, next-1)
				}
				next++
			}
		case <-ctx.Done():
			t.Fatalf("tail reached seq %d of %d", next-1, want)
		}
	}
	if _, err := sb.Say(ctx, "one", "hi", "test"); err == nil {
		t.Fatal("beta wrote to alpha's session while tailing it")
	}
}
