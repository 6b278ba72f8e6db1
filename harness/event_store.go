package harness

import (
	"exo/harness/api"
	"exo/store"
)

// eventOf is a stored event as the harness API hands it out: the same envelope, in the API's
// type, so that clients never import the store.
func eventOf(e store.Event) Event {
	return Event{Branch: e.Branch, Seq: e.Seq, Type: e.Type, Time: e.Time, Actor: e.Actor, Data: e.Data, Hash: api.Hash(e.Hash)}
}

// eventsOf converts stored events to the API's (nil stays nil).
func eventsOf(evs []store.Event) []Event {
	if evs == nil {
		return nil
	}
	out := make([]Event, len(evs))
	for i, e := range evs {
		out[i] = eventOf(e)
	}
	return out
}

// verifyReportOf converts the store's verification report to the API's.
func verifyReportOf(r store.VerifyReport) VerifyReport {
	out := VerifyReport{Branches: r.Branches, Events: r.Events}
	for _, p := range r.Problems {
		out.Problems = append(out.Problems, api.VerifyProblem(p))
	}
	return out
}
