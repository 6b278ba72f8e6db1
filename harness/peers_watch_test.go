package harness

import (
	"context"
	"fmt"
	"testing"
	"time"

	"exo/store/etcdtest"
)

// waitPeerNotice waits for a notice about node's session id.
func waitPeerNotice(t *testing.T, ch <-chan Notice, node, id string) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case n := <-ch:
			if n.Session == id && n.Peer == node {
				return
			}
		case <-deadline:
			t.Fatalf("no notice about session %s of daemon %s", id, node)
		}
	}
}

// TestWatchPeersAfterOutage: a peer watch that could not start while the cluster was down is
// started again once it is back; a session another daemon made in between (after the failed
// start, before the new one) is announced by the new watch, and one made after it arrives
// live. (Before, the new watch only reported changes after its own start: the session made in
// the gap never reached clients.)
func TestWatchPeersAfterOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	alpha := openTest(t, Options{Store: fmt.Sprintf("etcd://%s/gap?node=alpha", c.Endpoints[0])})
	beta := openTest(t, Options{Store: fmt.Sprintf("etcd://%s/gap?node=beta&timeout=5s", c.Endpoints[0])})
	notices, stop := beta.Subscribe(256)
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	warn := func(err error) { t.Errorf("peer watch warning: %v", err) }

	c.Kill(0)
	if err := beta.WatchPeers(ctx, warn); err == nil {
		t.Fatal("the peer watch started with its cluster down")
	}
	c.Restart(0)
	gap, err := alpha.NewSession(NewSessionOptions{Name: "gap", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- beta.WatchPeers(ctx, warn) }()
	waitPeerNotice(t, notices, "alpha", gap.ID)
	later, err := alpha.NewSession(NewSessionOptions{Name: "later", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	waitPeerNotice(t, notices, "alpha", later.ID)
	if _, err := alpha.Append(gap.ID, turn(1)...); err != nil {
		t.Fatal(err)
	}
	for deadline := time.After(60 * time.Second); ; {
		select {
		case n := <-notices:
			if n.Session == gap.ID && n.Peer == "alpha" && len(n.Events) > 0 {
				cancel()
				if err := <-done; err != context.Canceled {
					t.Fatalf("the peer watch ended with %v, want context.Canceled", err)
				}
				return
			}
		case err := <-done:
			t.Fatalf("the peer watch ended early: %v", err)
		case <-deadline:
			t.Fatal("no notice of the turn appended to the session made in the gap")
		}
	}
}
