package service

import (
	"context"
	"errors"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"exo/harness"
	"exo/harness/api"
	"exo/store/etcdtest"
)

// TestPeerRemovedWhileWatchBehind: daemon beta talks to one member of a three-member cluster;
// while that member is down, daemon alpha removes one session and archives another, and the
// cluster is compacted past it, so beta's watch falls behind the compaction. When the member
// is back beta's clients hear of both sessions, its list no longer has the removed one (nor
// can it take it over), and the archived one is marked archived (the siblings pane hides it).
func TestPeerRemovedWhileWatchBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-member etcd cluster")
	}
	t.Parallel()
	ctx := context.Background()
	c := etcdtest.Start(t, 3, etcdtest.Options{})
	_, sa := daemonOn(t, c.Endpoints[1:], "alpha")
	_, sb := daemonOn(t, c.Endpoints[:1], "beta")
	w, err := sb.Watch(ctx, api.WatchRequest{Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	gone, hidden := newPeerSession(t, sa, w, "gone"), newPeerSession(t, sa, w, "hidden")
	all, err := sb.ListSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := peerInfo(all, gone.ID); !ok {
		t.Fatal("beta does not list alpha's session")
	}

	drain(w) // what comes after the member is back is about what happened while it was down
	c.Kill(0)
	if _, err := sa.RemoveSession(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := sa.ArchiveSession(ctx, hidden.ID, true); err != nil {
		t.Fatal(err)
	}
	admin, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints[1:], DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	resp, err := admin.Get(ctx, "exo/v1/team/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Compact(ctx, resp.Header.Revision); err != nil {
		t.Fatal(err)
	}
	c.Restart(0)

	waitPeerLong(t, w, gone.ID)
	all, err = sb.ListSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if in, ok := peerInfo(all, gone.ID); ok {
		t.Fatalf("beta still lists the session alpha removed: %+v", in)
	}
	if in, ok := peerInfo(all, hidden.ID); !ok || !in.Session.Archived || in.Node != "alpha" {
		t.Fatalf("beta's view of the archived session: %+v (found %v)", in, ok)
	}
	if _, err := sb.TakeOver(ctx, gone.ID); !errors.Is(err, harness.ErrNoSession) {
		t.Fatalf("take over a removed session: %v", err)
	}
}

// newPeerSession makes a session on daemon a and waits until w (another daemon's) hears of it.
func newPeerSession(t *testing.T, a *Service, w *api.Watcher, name string) *harness.Session {
	t.Helper()
	s, err := a.NewSession(context.Background(), api.NewSessionRequest{Name: name, Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	waitPeerLong(t, w, s.ID)
	return s
}

// waitPeerLong is waitPeer with room for a member restarting on a loaded machine.
func waitPeerLong(t *testing.T, w *api.Watcher, id string) {
	t.Helper()
	deadline := time.After(90 * time.Second)
	for {
		select {
		case n, ok := <-w.C:
			if !ok {
				t.Fatalf("watch ended: %v", w.Err())
			}
			if n.Session == id && n.Peer != "" {
				return
			}
		case <-deadline:
			t.Fatalf("no notice about %s from the other daemon", id)
		}
	}
}

// drain discards the notices that arrive until none has for two seconds.
func drain(w *api.Watcher) {
	for {
		select {
		case <-w.C:
		case <-time.After(2 * time.Second):
			return
		}
	}
}
