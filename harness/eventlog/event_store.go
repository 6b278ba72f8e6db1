package eventlog

import (
	"exo/harness/api"
	"exo/store"
)

// EventOf is a stored event as the harness API hands it out: the same envelope, in the API's
// type, so that clients never import the store.
func EventOf(e store.Event) api.Event {
	return api.Event{Branch: e.Branch, Seq: e.Seq, Type: e.Type, Time: e.Time, Actor: e.Actor, Data: e.Data, Hash: api.Hash(e.Hash)}
}

// EventsOf converts stored events to the API's (nil stays nil).
func EventsOf(evs []store.Event) []api.Event {
	if evs == nil {
		return nil
	}
	out := make([]api.Event, len(evs))
	for i, e := range evs {
		out[i] = EventOf(e)
	}
	return out
}

// VerifyReportOf converts the store's verification report to the API's.
func VerifyReportOf(r store.VerifyReport) api.VerifyReport {
	out := api.VerifyReport{Branches: r.Branches, Events: r.Events}
	for _, p := range r.Problems {
		out.Problems = append(out.Problems, api.VerifyProblem(p))
	}
	return out
}
