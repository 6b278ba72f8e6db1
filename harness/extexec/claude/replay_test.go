package claude

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"exo/harness"
	"exo/harness/extexec/exectest"
)

// TestReplayAfterTheTurnIsNoStep: a model request replayed on the session's endpoint after the
// turn ended (by anything holding the token: the agent, or a command its native tools ran) is
// recorded beside the conversation (model.side, its cost counted), not as a step of a turn that
// is over. (Before, the turn's first request replayed was placed on the conversation: a
// step.started and an answer with a tool call that nothing ran, and the session showed running
// with no turn.)
func TestReplayAfterTheTurnIsNoStep(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{})
	res, err := x.Prompt(context.Background(), f.s.ID, "make a file", "test")
	okResult(t, res, err)
	ep := x.Session(f.s.ID).Endpoint
	first := f.srv.Messages()[0].Body
	before := len(f.events(t, f.s.ID))
	req, _ := http.NewRequest(http.MethodPost, ep.URL()+"/v1/messages", bytes.NewReader(first))
	req.Header.Set("X-Api-Key", ep.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err := x.Session(f.s.ID).Log.Flush(); err != nil {
		t.Fatal(err)
	}
	evs := f.events(t, f.s.ID)
	if got := exectest.Types(evs[before:]); got != harness.TypeModelSide {
		t.Fatalf("the replay recorded %q, want one model.side", got)
	}
	if st, _ := f.h.State(f.s.ID); st.Status != harness.StatusIdle || st.ModelInFlight != 0 || st.SideCalls != 1 {
		t.Fatalf("state after the replay: status %s, model in flight %d, side calls %d", st.Status, st.ModelInFlight, st.SideCalls)
	}
}
