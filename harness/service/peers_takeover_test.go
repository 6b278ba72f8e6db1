package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/store"
	"exo/store/etcdtest"
)

// TestTakeOverWhileCutOff: daemon alpha talks to one member of a three-member cluster and
// runs a session; the member dies, alpha's lease expires, and beta takes the session over and
// appends to it. When the member is back, alpha's clients hear that the session is beta's,
// alpha lists it as beta's (live, with beta's event), and alpha can no longer write to it:
// a prompt there is refused naming beta, and an append finds no session of alpha's.
func TestTakeOverWhileCutOff(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-member etcd cluster")
	}
	t.Parallel()
	ctx := context.Background()
	c := etcdtest.Start(t, 3, etcdtest.Options{})
	ha, err := harness.Open(t.TempDir(), harness.Options{NoSync: true,
		Store: fmt.Sprintf("etcd://%s/team?node=alpha&lease=2s&timeout=5s", c.Endpoints[0])})
	if err != nil {
		t.Fatal(err)
	}
	sa := New(ha, Options{})
	t.Cleanup(func() { sa.Close(); ha.Close() })
	hb, sb := daemonOn(t, c.Endpoints[1:], "beta")
	wa, err := sa.Watch(ctx, api.WatchRequest{Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer wa.Close()
	wb, err := sb.Watch(ctx, api.WatchRequest{Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer wb.Close()
	s1 := newPeerSession(t, sa, wb, "one")

	c.Kill(0)
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, err := sb.TakeOver(ctx, s1.ID)
		if err == nil {
			break
		}
		// Refused while alpha's lease lives; unreachable while the two members left elect a
		// leader when the killed one led (beyond beta's request time on a starved machine).
		if !errors.Is(err, harness.ErrNotOwner) && !errors.Is(err, store.ErrUnreachable) || time.Now().After(deadline) {
			t.Fatalf("beta takes over alpha's session while alpha is cut off: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	rec := harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: "from beta"})
	evs, err := hb.AppendOn(s1.ID, s1.Branch, rec)
	if err != nil {
		t.Fatalf("beta appends to the session it took over: %v", err)
	}
	drain(wa)
	c.Restart(0)

	waitPeerOf(t, wa, s1.ID, "beta")
	deadline = time.Now().Add(60 * time.Second)
	for {
		all, err := sa.ListSessions(ctx)
		in, ok := peerInfo(all, s1.ID)
		if err == nil && ok && in.Node == "beta" && in.Live && in.Head == evs[0].Seq {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("alpha's view of the session beta took over: %+v (found %v, %v)", in, ok, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := sa.Say(ctx, s1.ID, "hi", "test"); !errors.Is(err, harness.ErrNotOwner) || !strings.Contains(err.Error(), "runs on daemon beta") {
		t.Fatalf("alpha prompts the session beta took over: %v", err)
	}
	// Its record is beta's now: to alpha the session is not its own (nor is the branch).
	if _, err := ha.AppendOn(s1.ID, s1.Branch, rec); !errors.Is(err, store.ErrNotFound) && !errors.Is(err, harness.ErrNotOwner) {
		t.Fatalf("alpha appends to the session beta took over: %v", err)
	}
	if head, _, err := ha.Store().Head(s1.Branch); err != nil || head != evs[0].Seq {
		t.Fatalf("head after alpha's refused append: %d %v, want %d", head, err, evs[0].Seq)
	}
}

// waitPeerOf waits for a notice about session id from daemon node.
func waitPeerOf(t *testing.T, w *api.Watcher, id, node string) {
	t.Helper()
	deadline := time.After(90 * time.Second)
	for {
		select {
		case n, ok := <-w.C:
			if !ok {
				t.Fatalf("watch ended: %v", w.Err())
			}
			if n.Session == id && n.Peer == node {
				return
			}
		case <-deadline:
			t.Fatalf("no notice about %s from daemon %s", id, node)
		}
	}
}
