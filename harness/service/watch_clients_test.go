package service

import (
	"context"
	"os"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/sandbox"
)

// Only a watch that counts as a session's client tells subscribers the counts when it comes and
// goes. A watch of no session (exo tail, exo run) changes no count, and telling every other
// subscriber each time cost N² notices for N watches: a thousand relayed followers killed at once
// held the daemon for a minute and a half and took gigabytes.
func TestOnlyAttachedWatchesPublishClients(t *testing.T) {
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	s, err := h.NewSession(harness.NewSessionOptions{Name: "a", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	svc := New(h, Options{})
	defer svc.Close()
	notices, stop := h.Subscribe(4096)
	defer stop()
	ctx := context.Background()
	watch := func(attach string) {
		w, err := svc.Watch(ctx, api.WatchRequest{Session: s.ID, Attach: attach})
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		for range w.C { // its end: detached
		}
	}
	for i := 0; i < 20; i++ {
		watch("")
	}
	watch(s.ID)
	var counts []map[string]int
	for len(counts) < 2 {
		select {
		case n := <-notices:
			if n.Clients != nil {
				counts = append(counts, n.Clients)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("the attached watch's clients notices did not come: %v", counts)
		}
	}
	if counts[0][s.ID] != 1 || counts[1][s.ID] != 0 {
		t.Fatalf("clients notices %v: want the attached watch's coming and going only", counts)
	}
}
