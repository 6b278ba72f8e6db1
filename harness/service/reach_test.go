package service

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/store/etcdtest"
)

// TestQuorumLossClosesTheCutTurn: a daemon's turn is cut by a lost quorum after its tool
// started (its log ends at tool.started, nothing running it any more). Once quorum is back the
// daemon records, by itself, the tool call and the turn as interrupted because the store was
// unreachable (not "killed or crashed").
func TestQuorumLossClosesTheCutTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-member etcd cluster")
	}
	t.Parallel()
	c := etcdtest.Start(t, 3, etcdtest.Options{})
	testCutTurnClosed(t, c.Endpoints, c)
}

// TestRealEtcdQuorumLossClosesTheCutTurn is TestQuorumLossClosesTheCutTurn against etcd server
// processes (Debian's etcd-server in CI).
func TestRealEtcdQuorumLossClosesTheCutTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-member etcd cluster")
	}
	t.Parallel()
	c := etcdtest.StartBinary(t, 3)
	testCutTurnClosed(t, c.Endpoints, c)
}

// members kills and restarts members of a cluster.
type members interface {
	Kill(i int)
	Restart(i int)
}

// testCutTurnClosed is the body of the quorum-loss tests: a daemon on the first endpoint, its
// turn cut by members 1 and 2 going down.
func testCutTurnClosed(t *testing.T, endpoints []string, c members) {
	ctx := context.Background()
	url := fmt.Sprintf("etcd://%s/cut?node=alpha&lease=3s&timeout=5s", endpoints[0])
	h, err := harness.Open(t.TempDir(), harness.Options{NoSync: true, Store: url})
	if err != nil {
		t.Fatal(err)
	}
	s := New(h, Options{})
	t.Cleanup(func() { s.Close(); h.Close() })
	se, err := s.NewSession(ctx, api.NewSessionRequest{Name: "cut", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var head uint64
	for _, r := range [][2]any{
		{harness.TypeInvocationReceived, harness.InvocationReceived{Text: "go"}},
		{harness.TypeStepStarted, harness.StepStarted{Step: 1}},
		{harness.TypeModelRequested, harness.ModelRequested{Model: "m"}},
		{harness.TypeModelCompleted, harness.ModelCompleted{Model: "m", ToolCalls: []harness.ToolCall{{ID: "c1", Name: "bash", Arguments: json.RawMessage(`{}`)}}}},
		{harness.TypeToolStarted, harness.ToolStarted{CallID: "c1", Tool: "bash"}},
	} {
		evs, err := h.Append(se.ID, harness.MustRecord(r[0].(string), harness.ActorHarness, r[1]))
		if err != nil {
			t.Fatal(err)
		}
		head = evs[0].Seq
	}
	w, err := s.Watch(ctx, api.WatchRequest{Session: se.ID, After: head, Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// Under load the keep-alives can go unanswered for longer than the lease allows with every
	// member up, an outage the store rightly reports and ends: the cut starts from a store that
	// is up, and the outage the test waits for is the one the kills make.
	reach := func(up bool, what string) {
		t.Helper()
		deadline := time.After(time.Minute)
		for r, changed := h.Store().Reachability(); r.Up != up; r, changed = h.Store().Reachability() {
			select {
			case <-changed:
			case <-deadline:
				t.Fatalf("%s: %+v", what, r)
			}
		}
	}
	reach(true, "the store is not up before the cut")
	c.Kill(1)
	c.Kill(2)
	reach(false, "the store says it is up without quorum") // the keep-alives stop being answered
	if a, err := s.Activity(ctx); err != nil || a.Store == nil || a.Store.Up || a.Store.Why == "" {
		t.Fatalf("activity during the outage: %+v %v", a.Store, err)
	}
	c.Restart(2)
	deadline := time.After(time.Minute)
	var told []bool // what the watch said of the store, in order
	for {
		select {
		case n, ok := <-w.C:
			if !ok {
				t.Fatalf("watch ended: %v", w.Err())
			}
			if n.Store != nil {
				told = append(told, n.Store.Up)
			}
			for _, e := range n.Events {
				if e.Type != harness.TypeTurnInterrupted {
					continue
				}
				var p harness.TurnInterrupted
				_ = json.Unmarshal(e.Data, &p)
				if !strings.Contains(p.Reason, "store was unreachable") || strings.Contains(p.Reason, "killed") {
					t.Fatalf("reason: %q", p.Reason)
				}
				evs, err := h.Events(se.ID, 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				if evs[len(evs)-2].Type != harness.TypeToolCompleted {
					t.Fatalf("the open tool call was not closed: %s", evs[len(evs)-2].Type)
				}
				// The outage was told to the watchers (the app's banner), and its end before the
				// cut turn was closed.
				if !slices.Contains(told, false) || told[len(told)-1] != true {
					t.Fatalf("the watch told the store's state as %v, want down then up", told)
				}
				return
			}
		case <-deadline:
			t.Fatal("the cut turn was not recorded as interrupted after quorum came back")
		}
	}
}
