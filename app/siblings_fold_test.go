package app

import (
	"encoding/json"
	"testing"
	"time"

	"exo/harness/api"
	"exo/views"
)

// TestSiblingSetFoldsNotices: the siblings pane follows sessions from the watch stream (events,
// turns, clients, governance) and asks to list again only for what it cannot fold: a session it
// does not know, a gap in a session's events, missed notices.
func TestSiblingSetFoldsNotices(t *testing.T) {
	se := &api.Session{ID: "s1", Name: "one", Branch: "b1"}
	set := newSiblingSet([]api.SessionInfo{{Session: se, Head: 2, Status: api.StatusIdle}})
	ev := func(seq uint64, typ string, payload any) api.Event {
		data, err := json.Marshal(payload)
		if err != nil {
			t.Fatal(err)
		}
		return api.Event{Seq: seq, Branch: "b1", Type: typ, Actor: "harness", Data: data, Time: time.Unix(int64(seq), 0)}
	}
	fold := func(n api.Notice) bool {
		t.Helper()
		_, relist := set.fold(n)
		return relist
	}
	if fold(api.Notice{Session: "s1", Turn: &api.TurnNotice{ID: "t", Running: true}}) ||
		fold(api.Notice{Session: "s1", Events: []api.Event{ev(3, api.TypeStepStarted, api.StepStarted{})}}) ||
		fold(api.Notice{Clients: map[string]int{"s1": 2}}) ||
		fold(api.Notice{Session: "s1", Governance: &api.GovernanceSummary{Drift: 0.5, Conflicts: 1}}) {
		t.Fatal("a notice it can fold made it list again")
	}
	if fold(api.Notice{Session: "s1", Updated: &api.Session{ID: "s1", Name: "renamed", Branch: "b1"}}) {
		t.Fatal("a session's new record made it list again")
	}
	if set.infos[0].Session.Name != "renamed" {
		t.Fatalf("the new record is not folded: %+v", set.infos[0].Session)
	}
	r := set.rows()[0]
	if r.Status != views.StatusRunning || r.Steps != 1 || r.Clients != 2 || r.Drift != 0.5 || r.Conflicts != 1 {
		t.Fatalf("folded row %+v", r)
	}
	fold(api.Notice{Session: "s1", Turn: &api.TurnNotice{ID: "t"}})
	if r := set.rows()[0]; r.Status != views.StatusIdle {
		t.Fatalf("a session no turn runs shows %v", r.Status)
	}
	if fold(api.Notice{Session: "s1", Events: []api.Event{ev(3, api.TypeStepStarted, api.StepStarted{})}}) {
		t.Fatal("an event it already folded made it list again")
	}
	if !fold(api.Notice{Session: "s1", Events: []api.Event{ev(9, api.TypeStepStarted, api.StepStarted{})}}) {
		t.Fatal("a gap in the events did not make it list again")
	}
	if !fold(api.Notice{Session: "s2", Events: []api.Event{ev(1, api.TypeSessionCreated, api.SessionCreated{})}}) {
		t.Fatal("a session made since the listing did not make it list again")
	}
	if !fold(api.Notice{Lagged: true}) {
		t.Fatal("missed notices did not make it list again")
	}
	if fold(api.Notice{Session: "s1", Events: []api.Event{ev(4, api.TypeSessionDeleted, api.SessionDeleted{})}}) || len(set.rows()) != 0 {
		t.Fatalf("a deleted session stays: %+v", set.rows())
	}
}
