package executor

import (
	"context"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/provider/providertest"
)

// TestStepLimitHasItsOwnRecord: a turn that keeps calling tools stops after MaxSteps model calls
// with one turn.step_limit (no turn.cancelled: the user cancelled nothing), the session idle, the
// result marked StepLimit; the next turn's request tells the model its previous turn hit the limit,
// not that the user cancelled it.
func TestStepLimitHasItsOwnRecord(t *testing.T) {
	again := providertest.ChatReply{Text: "more", ToolCalls: []providertest.ChatToolCall{{ID: "c1", Name: "list_dir", Args: `{"path":"."}`}}}
	h, s, srv := chatSession(t, again, again, again, again)
	x := New(h, Options{Headless: true})
	res, err := x.PromptWith(context.Background(), s.ID, "go on forever", "test", TurnOptions{MaxSteps: 2})
	if err != nil || !res.StepLimit || !res.Cancelled || res.Steps != 2 || res.StopReason != harness.StopStepLimit {
		t.Fatalf("%+v %v", res, err)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d model calls under a limit of 2", n)
	}
	count := func(typ string) int {
		evs, _ := h.Events(s.ID, 0, 0)
		n := 0
		for _, e := range evs {
			if e.Type == typ {
				n++
			}
		}
		return n
	}
	if c, l := count(harness.TypeTurnCancelled), count(harness.TypeTurnStepLimit); c != 0 || l != 1 {
		t.Fatalf("%d turn.cancelled and %d turn.step_limit, want 0 and 1", c, l)
	}
	st, err := h.State(s.ID)
	if err != nil || st.Status != harness.StatusIdle {
		t.Fatalf("status after the limit: %v %v", st.Status, err)
	}
	srv.SetReplies(providertest.ChatReply{Text: "finished"})
	if res, err := x.Prompt(context.Background(), s.ID, "carry on", "test"); err != nil || res.Cancelled {
		t.Fatalf("the next turn: %+v %v", res, err)
	}
	reqs := srv.Requests()
	body := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(body, "step limit (2 model calls)") || strings.Contains(body, "cancelled") {
		t.Fatalf("the next request does not say the turn hit its step limit:\n%s", body)
	}
}
