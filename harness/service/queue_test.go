package service

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/provider"
)

// waitingTurn starts a turn of the approval script that asks before it writes, and waits until
// it waits for that approval: a turn that runs until the test answers.
func waitingTurn(t *testing.T) (*Service, *harness.Harness, *harness.Session, api.TurnStarted, string) {
	t.Helper()
	svc, h, s, _ := approvalHarness(t)
	ctx := context.Background()
	ts, err := svc.StartTurn(ctx, api.TurnRequest{Session: s.ID, Text: "go", Source: "tui", Approval: "ask"})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		st, err := h.State(s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Approvals) > 0 {
			return svc, h, s, ts, st.Approvals[0]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the turn never asked for its approval")
	return nil, nil, nil, ts, ""
}

// typesAfter lists the types of a session's events after seq.
func typesAfter(t *testing.T, h *harness.Harness, s *harness.Session, seq uint64) []string {
	t.Helper()
	evs, err := h.Events(s.ID, seq+1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

// TestPromptWhileATurnRunsIsQueued: a prompt sent with when_busy=queue while a turn runs is
// recorded as prompt.queued and shown in the state's queue; when the turn ends it is taken
// (prompt.unqueued, sent) and the next turn starts with it, with the options it was sent with,
// and its id is the id of that turn. Without when_busy the prompt is refused as before.
func TestPromptWhileATurnRunsIsQueued(t *testing.T) {
	svc, h, s, first, call := waitingTurn(t)
	ctx := context.Background()
	if _, err := svc.StartTurn(ctx, api.TurnRequest{Session: s.ID, Text: "refused"}); !errors.Is(err, api.ErrBusy) {
		t.Fatalf("a prompt without when_busy: %v, want busy", err)
	}
	q, err := svc.StartTurn(ctx, api.TurnRequest{Session: s.ID, Text: "and then this", Source: "run", WhenBusy: api.BusyQueue, Headless: true, AutoApprove: true})
	if err != nil || !q.Queued || q.Steer || q.ID == "" {
		t.Fatalf("queue: %+v %v", q, err)
	}
	st, _ := h.State(s.ID)
	if len(st.Queued) != 1 || st.Queued[0].Text != "and then this" || st.Queued[0].ID != q.ID || st.Queued[0].Source != "run" {
		t.Fatalf("queue in the state: %+v", st.Queued)
	}
	if err := svc.Approve(ctx, s.ID, call, "once"); err != nil {
		t.Fatal(err)
	}
	if res, err := svc.WaitTurn(ctx, s.ID, first.ID); err != nil || res.Response != "done" {
		t.Fatalf("first turn: %+v %v", res, err)
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second) // auto-approved, as it was sent: no one answers here
	defer cancel()
	res, err := svc.WaitTurn(wctx, s.ID, q.ID)
	if err != nil || res.Response != "done" || res.Failure != "" {
		t.Fatalf("the queued prompt's turn (it keeps the options it was sent with): %+v %v", res, err)
	}
	st, _ = h.State(s.ID)
	if len(st.Queued) != 0 || st.Turns != 2 {
		t.Fatalf("after: queued %+v, %d turns", st.Queued, st.Turns)
	}
	got := strings.Join(typesAfter(t, h, s, q.Seq), " ")
	if !strings.Contains(got, api.TypePromptQueued) || !strings.Contains(got, api.TypePromptUnqueued+" "+harness.TypeInvocationReceived) {
		t.Fatalf("events: %s", got)
	}
	evs, _ := h.Events(s.ID, 0, 0)
	var sent *harness.InvocationReceived
	for _, e := range evs {
		if e.Type == harness.TypeInvocationReceived {
			p, _ := harness.Decode(e)
			sent = p.(*harness.InvocationReceived)
		}
	}
	if sent == nil || sent.Text != "and then this" || sent.Source != "run" {
		t.Fatalf("the next turn's prompt: %+v", sent)
	}
}

// TestSteerEntersTheRunningTurn: a prompt queued to steer is taken by the running turn at its
// next step, after the tool result it waited for, as prompt.steered; the model's next call sees
// it as the user's message there, no other turn starts, and waiting for it waits for the turn.
func TestSteerEntersTheRunningTurn(t *testing.T) {
	svc, h, s, first, call := waitingTurn(t)
	ctx := context.Background()
	q, err := svc.StartTurn(ctx, api.TurnRequest{Session: s.ID, Text: "use tabs, not spaces", WhenBusy: api.BusySteer})
	if err != nil || !q.Queued || !q.Steer {
		t.Fatalf("steer: %+v %v", q, err)
	}
	if err := svc.Approve(ctx, s.ID, call, "always"); err != nil { // the script's replay writes again
		t.Fatal(err)
	}
	res, err := svc.WaitTurn(ctx, s.ID, first.ID)
	if err != nil || res.Response != "done" {
		t.Fatalf("turn: %+v %v", res, err)
	}
	if res2, err := svc.WaitTurn(ctx, s.ID, q.ID); err != nil || res2.Response != res.Response {
		t.Fatalf("waiting for the steer: %+v %v", res2, err)
	}
	st, _ := h.State(s.ID)
	if st.Turns != 1 || len(st.Queued) != 0 {
		t.Fatalf("turns %d, queued %+v", st.Turns, st.Queued)
	}
	got := strings.Join(typesAfter(t, h, s, q.Seq), " ")
	want := harness.TypeToolCompleted + " " + harness.TypeWorkspaceSnapshot + " " + api.TypePromptSteered + " " + harness.TypeStepStarted
	if !strings.Contains(got, api.TypePromptSteered+" "+harness.TypeStepStarted) || strings.Contains(got, api.TypePromptUnqueued) {
		t.Fatalf("events after the steer: %s (want … %s …)", got, want)
	}
	var found bool
	for _, it := range st.Items {
		found = found || it.Kind == api.ItemUser && it.Steered && it.Text == "use tabs, not spaces"
	}
	if !found {
		t.Fatalf("no steered user item: %+v", st.Items)
	}
	v, err := svc.x.ViewOf(s.Branch, "")
	if err != nil {
		t.Fatal(err)
	}
	at := -1
	for i, m := range v.Messages {
		if m.Role == provider.RoleUser && strings.Contains(m.Text, "use tabs, not spaces") {
			at = i
		}
	}
	if at < 1 || v.Messages[at-1].Role != provider.RoleTool || at+1 >= len(v.Messages) || v.Messages[at+1].Role != provider.RoleAssistant {
		t.Fatalf("the steer is not a user message between a tool result and the next answer (at %d of %d)", at, len(v.Messages))
	}
}

// TestQueuedPromptTakenBack: a queued prompt taken back (Unqueue) leaves the queue with
// prompt.unqueued (cancelled), its wait ends as cancelled, taking it back again is not found,
// and no turn starts with it.
func TestQueuedPromptTakenBack(t *testing.T) {
	svc, h, s, first, call := waitingTurn(t)
	ctx := context.Background()
	q, err := svc.StartTurn(ctx, api.TurnRequest{Session: s.ID, Text: "never mind", WhenBusy: api.BusyQueue})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Unqueue(ctx, s.ID, q.ID); err != nil {
		t.Fatal(err)
	}
	if err := svc.Unqueue(ctx, s.ID, q.ID); !errors.Is(err, api.ErrNotFound) {
		t.Fatalf("again: %v, want not found", err)
	}
	if res, err := svc.WaitTurn(ctx, s.ID, q.ID); err != nil || !res.Cancelled {
		t.Fatalf("its wait: %+v %v", res, err)
	}
	st, _ := h.State(s.ID)
	if len(st.Queued) != 0 || st.Items[len(st.Items)-1].Text != "queued prompt taken back: never mind" {
		t.Fatalf("state: %+v, last item %+v", st.Queued, st.Items[len(st.Items)-1])
	}
	if err := svc.Approve(ctx, s.ID, call, "once"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.WaitTurn(ctx, s.ID, first.ID); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if st, _ := h.State(s.ID); st.Turns != 1 || svc.runningTurn(s.ID) != nil {
		t.Fatalf("a turn started with a prompt taken back: %d turns", st.Turns)
	}
}

// TestCancelDropsTheQueue: cancelling the running turn drops what was queued behind it
// (prompt.unqueued, dropped, its text in a notice) rather than starting it.
func TestCancelDropsTheQueue(t *testing.T) {
	svc, h, s, _, _ := waitingTurn(t)
	ctx := context.Background()
	q, err := svc.StartTurn(ctx, api.TurnRequest{Session: s.ID, Text: "after that", WhenBusy: api.BusyQueue})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.CancelTurn(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	res, err := svc.WaitTurn(ctx, s.ID, q.ID)
	if err != nil || !res.Cancelled {
		t.Fatalf("its wait: %+v %v", res, err)
	}
	st, _ := h.State(s.ID)
	last := st.Items[len(st.Items)-1]
	if len(st.Queued) != 0 || st.Turns != 1 || !strings.Contains(last.Text, "not sent") || !strings.Contains(last.Text, "after that") {
		t.Fatalf("state: queued %+v, %d turns, last %+v", st.Queued, st.Turns, last)
	}
}

// TestQueueWhenIdleStartsATurn: when_busy changes nothing when no turn runs.
func TestQueueWhenIdleStartsATurn(t *testing.T) {
	svc, h, s, _ := approvalHarness(t)
	ctx := context.Background()
	ts, err := svc.StartTurn(ctx, api.TurnRequest{Session: s.ID, Text: "go", WhenBusy: api.BusyQueue, Headless: true, AutoApprove: true})
	if err != nil || ts.Queued {
		t.Fatalf("%+v %v", ts, err)
	}
	if res, err := svc.WaitTurn(ctx, s.ID, ts.ID); err != nil || res.Response != "done" {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := svc.StartTurn(ctx, api.TurnRequest{Session: s.ID, Text: "x", WhenBusy: "later"}); !errors.Is(err, api.ErrInvalid) {
		t.Fatalf("a bad when_busy: %v", err)
	}
	if st, _ := h.State(s.ID); st.Turns != 1 {
		t.Fatalf("%d turns", st.Turns)
	}
}
