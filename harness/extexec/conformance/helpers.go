package conformance

import (
	"bytes"
	"context"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/exectest"
	"exo/harness/extexec/modeltest"
)

// prompt runs one turn and fails unless it ended normally.
func (f *Fixture) prompt(t testing.TB, x Executor, sid, text string) executor.Result {
	t.Helper()
	res, err := x.Prompt(context.Background(), sid, text)
	if err != nil || res.Failure != "" || res.Cancelled {
		t.Fatalf("turn %q: err %v, result %+v (events %s)", text, err, res, exectest.Types(f.events(t, sid)))
	}
	return res
}

// events are session sid's events on its current branch.
func (f *Fixture) events(t testing.TB, sid string) []harness.Event {
	t.Helper()
	return exectest.Events(t, f.H, sid)
}

// lastSeq is the sequence number of the session's last event.
func (f *Fixture) lastSeq(t testing.TB, sid string) uint64 {
	t.Helper()
	evs := f.events(t, sid)
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	return evs[len(evs)-1].Seq
}

// requestsWith are the requests the model server received whose body holds marker (the
// behaviours share the server; each marks its requests with its own prompt).
func (s *Suite) requestsWith(marker string) []modeltest.Seen {
	var out []modeltest.Seen
	for _, q := range s.srv.Requests() {
		if bytes.Contains(q.Body, []byte(marker)) {
			out = append(out, q)
		}
	}
	return out
}

// bodies are the bodies of every request the model server received.
func (s *Suite) bodies() [][]byte {
	var out [][]byte
	for _, q := range s.srv.Requests() {
		out = append(out, q.Body)
	}
	return out
}

// answerApprovals answers the session's approval requests with decisions, in order, until the
// test ends.
func (f *Fixture) answerApprovals(t testing.TB, sid string, decisions ...string) {
	t.Helper()
	ch, stop := f.H.Subscribe(256)
	t.Cleanup(stop)
	go func() {
		for n := range ch {
			for _, e := range n.Events {
				if e.Type != harness.TypeApprovalRequested || n.Session != sid || len(decisions) == 0 {
					continue
				}
				p, err := harness.Decode(e)
				if err != nil {
					continue
				}
				d := decisions[0]
				decisions = decisions[1:]
				f.H.Append(sid, harness.MustRecord(harness.TypeApprovalResolved, harness.ActorUser,
					harness.ApprovalResolved{CallID: p.(*harness.ApprovalRequested).CallID, Decision: d}))
			}
		}
	}()
}
