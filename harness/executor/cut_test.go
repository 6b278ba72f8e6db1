package executor

import (
	"context"
	"strings"
	"sync"
	"testing"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/provider"
	"exo/harness/provider/providertest"
)

// cutEvents decodes a session's model.completed events and says which event types follow.
func cutEvents(t *testing.T, h *harness.Harness, id string) ([]*harness.ModelCompleted, []string) {
	t.Helper()
	evs, err := h.Events(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var done []*harness.ModelCompleted
	var types []string
	for _, e := range evs {
		types = append(types, e.Type)
		if e.Type == harness.TypeModelCompleted {
			p, _ := harness.Decode(e)
			done = append(done, p.(*harness.ModelCompleted))
		}
	}
	return done, types
}

// TestCancelMidAnswerKeepsTheCutAnswer: Ctrl-C while the model's answer streams keeps the text
// and reasoning received so far as a model.completed marked cut, counted in the turn's usage
// and cost (estimated: the stream never reached its usage); the tool call it had begun is
// recorded as not run, never started; the next prompt sends the cut text back to the model
// with a note, and not the call.
func TestCancelMidAnswerKeepsTheCutAnswer(t *testing.T) {
	h, s, srv := chatSession(t,
		providertest.ChatReply{Reasoning: "Let me think about the files.", Text: "Here is the first half of my answer",
			ToolCalls: []providertest.ChatToolCall{{ID: "c1", Name: "bash", Args: `{"command":"rm -rf bu`}}, Hold: true},
		providertest.ChatReply{Text: "second answer"},
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	x := New(h, Options{Headless: true, OnDelta: func(_, text string) {
		if strings.Contains(text, "first half") {
			once.Do(cancel)
		}
	}})
	res, err := x.Prompt(ctx, s.ID, "explain", "test")
	if err != nil || !res.Cancelled {
		t.Fatalf("%+v %v", res, err)
	}
	done, types := cutEvents(t, h, s.ID)
	if len(done) != 1 {
		t.Fatalf("model.completed events: %d (%v)", len(done), types)
	}
	c := done[0]
	if c.Cut != api.CutCancelled || c.Text != "Here is the first half of my answer" || api.ReasoningText(c.Reasoning) != "Let me think about the files." {
		t.Fatalf("cut answer: %+v", c)
	}
	if !c.UsageEstimated || c.Usage.Input == 0 || c.Usage.Output == 0 || len(c.ToolCalls) != 0 {
		t.Fatalf("usage or calls of the cut answer: %+v", c)
	}
	if len(c.CutCalls) != 1 || c.CutCalls[0].Name != "bash" || c.CutCalls[0].Args != `{"command":"rm -rf bu` {
		t.Fatalf("cut calls: %+v", c.CutCalls)
	}
	for _, typ := range types {
		if typ == harness.TypeToolStarted {
			t.Fatalf("a cut call was started: %v", types)
		}
	}
	if types[len(types)-1] != harness.TypeTurnCancelled {
		t.Fatalf("the turn does not end cancelled: %v", types)
	}
	if res.Usage.Output != int64(c.Usage.Output) || res.Response != c.Text {
		t.Fatalf("the turn's result does not count the cut answer: %+v", res)
	}
	st, _ := h.BranchState(s.Branch)
	if st.Usage.Output != c.Usage.Output || st.Status != harness.StatusIdle {
		t.Fatalf("state: %+v", st)
	}
	if sum := harness.Summary(lastOf(t, h, s.ID, harness.TypeModelCompleted)); !strings.Contains(sum, "cut: cancelled") || !strings.Contains(sum, "not run") || !strings.Contains(sum, "estimated") {
		t.Fatalf("log line: %s", sum)
	}

	if _, err := x.Prompt(context.Background(), s.ID, "go on", "test"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	body := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(body, `"content":"Here is the first half of my answer"`) || !strings.Contains(body, "cut off") {
		t.Fatalf("the next prompt does not hold the cut answer: %s", body)
	}
	if strings.Contains(body, "rm -rf bu") || strings.Contains(body, `"tool_calls"`) {
		t.Fatalf("the next prompt sends the cut call back: %s", body)
	}
}

// TestStreamCutKeepsTheCutAnswer: a connection lost mid-answer keeps what had streamed as a cut
// answer before the model.failed, and the next prompt sends it back.
func TestStreamCutKeepsTheCutAnswer(t *testing.T) {
	h, s, srv := chatSession(t,
		providertest.ChatReply{Text: "Partial text before the network went", Drop: true},
		providertest.ChatReply{Text: "whole answer"},
	)
	x := New(h, Options{Headless: true})
	res, err := x.Prompt(context.Background(), s.ID, "explain", "test")
	if err != nil || res.Failure == "" {
		t.Fatalf("%+v %v", res, err)
	}
	done, types := cutEvents(t, h, s.ID)
	if len(done) != 1 || done[0].Cut != api.CutStream || done[0].Text != "Partial text before the network went" || !done[0].UsageEstimated {
		t.Fatalf("events %v, completions %+v", types, done)
	}
	if types[len(types)-1] != harness.TypeModelFailed {
		t.Fatalf("the turn does not end failed: %v", types)
	}
	if _, err := x.Prompt(context.Background(), s.ID, "again", "test"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	body := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(body, "Partial text before the network went") || !strings.Contains(body, "connection to the model was lost") {
		t.Fatalf("the next prompt does not hold the cut answer: %s", body)
	}
}

// TestStopMidAnswerSaysExoStopped: a turn cancelled because exo stops marks its cut answer so.
func TestStopMidAnswerSaysExoStopped(t *testing.T) {
	h, s, _ := chatSession(t, providertest.ChatReply{Text: "halfway", Hold: true})
	ctx, stop := context.WithCancelCause(context.Background())
	defer stop(nil)
	var once sync.Once
	x := New(h, Options{Headless: true, OnDelta: func(string, string) { once.Do(func() { stop(ErrStopping) }) }})
	if _, err := x.Prompt(ctx, s.ID, "explain", "test"); err != nil {
		t.Fatal(err)
	}
	done, types := cutEvents(t, h, s.ID)
	if len(done) != 1 || done[0].Cut != api.CutShutdown || done[0].Text != "halfway" {
		t.Fatalf("events %v, completions %+v", types, done)
	}
}

// lastOf returns the newest event of a type.
func lastOf(t *testing.T, h *harness.Harness, id, typ string) harness.Event {
	t.Helper()
	evs, _ := h.Events(id, 0, 0)
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Type == typ {
			return evs[i]
		}
	}
	t.Fatalf("no %s", typ)
	return harness.Event{}
}

// TestCutReasonNamesTheProvidersError: an answer ended by the provider's own error (finish_reason
// "error", an overload sent in the stream) is cut by the provider, not by a lost stream.
func TestCutReasonNamesTheProvidersError(t *testing.T) {
	live, cancelled := context.Background(), func() context.Context {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx
	}()
	for _, c := range []struct {
		ctx  context.Context
		err  error
		want string
	}{
		{live, &provider.PartialError{Err: &provider.Error{Kind: provider.ErrServer, Detail: `finish_reason "error"`}}, api.CutProvider},
		{live, &provider.PartialError{Err: &provider.Error{Kind: provider.ErrOverloaded}}, api.CutProvider},
		{live, &provider.PartialError{Err: &provider.Error{Kind: provider.ErrStreamCut}}, api.CutStream},
		{live, &provider.PartialError{Err: &provider.Error{Kind: provider.ErrMalformedStream}}, api.CutStream},
		{cancelled, &provider.PartialError{Err: context.Canceled}, api.CutCancelled},
	} {
		if got := cutReason(c.ctx, c.err); got != c.want {
			t.Errorf("cutReason(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
