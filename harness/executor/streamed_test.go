package executor

import (
	"context"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/provider/providertest"
)

// TestStreamingAnswerIsSavedAndRecoveredAfterAKill: while an answer streams, what it has sent
// is saved (redacted: a sealed secret the model echoes is not in it) against its model.requested;
// the save goes once the answer's end is recorded. A process that died with an answer saved
// leaves it to the next open, which records it as the answer, cut by the kill, before the
// turn's interruption, and the next prompt sends it back to the model.
func TestStreamingAnswerIsSavedAndRecoveredAfterAKill(t *testing.T) {
	const secret = "sk-live-STREAMED-0123456789abcdef"
	h, s, srv := chatSession(t,
		providertest.ChatReply{Text: "The key is " + secret + " and the first half of my answer", Hold: true},
		providertest.ChatReply{Text: "carrying on"},
	)
	if err := h.SetSecret("deploy", []byte(secret)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	x := New(h, Options{Headless: true})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		x.Prompt(ctx, s.ID, "explain", "test")
	}()
	var saved harness.StreamedAnswer
	var seq uint64
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		e, ok, err := h.Streamed(s.Branch)
		if err != nil {
			t.Fatal(err)
		}
		if ok && strings.Contains(e.Answer.Text, "first half") {
			saved, seq = *e.Answer, e.Seq
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the streaming answer was never saved")
		}
	}
	if strings.Contains(saved.Text, secret) || saved.Usage.Input == 0 || saved.Usage.Output == 0 {
		t.Fatalf("saved answer: %+v", saved)
	}
	if st, _ := h.BranchState(s.Branch); st.ModelInFlight != seq {
		t.Fatalf("saved against event %d, the request in flight is %d", seq, st.ModelInFlight)
	}
	cancel()
	<-ended
	if _, ok, _ := h.Streamed(s.Branch); ok {
		t.Fatal("the save outlives the answer's end")
	}

	// A process killed mid-answer: its request is in the log, its answer saved, nothing after.
	evs, err := h.AppendOn(s.ID, s.Branch,
		harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: "again", Source: "test"}),
		harness.MustRecord(harness.TypeStepStarted, "executor:default", harness.StepStarted{Step: 1}),
		harness.MustRecord(harness.TypeModelRequested, "executor:default", harness.ModelRequested{Model: "chat", Step: 1, PromptTokens: 50}))
	if err != nil {
		t.Fatal(err)
	}
	req := evs[len(evs)-1].Seq
	if err := h.SaveStreamed(s.ID, s.Branch, req, harness.StreamedAnswer{Model: "chat", Text: "What I had written before the kill",
		Usage: api.Usage{Input: 50, Output: 8}, Cost: 0.001}); err != nil {
		t.Fatal(err)
	}
	if rep := h.Recover(); len(rep.Interrupted) != 1 {
		t.Fatalf("recovery: %+v", rep)
	}
	done, types := cutEvents(t, h, s.ID)
	c := done[len(done)-1]
	if c.Cut != api.CutKilled || c.Text != "What I had written before the kill" || !c.UsageEstimated || c.Usage.Output != 8 {
		t.Fatalf("the killed answer: %+v (%v)", c, types)
	}
	if tail := types[len(types)-2:]; tail[0] != harness.TypeModelCompleted || tail[1] != harness.TypeTurnInterrupted {
		t.Fatalf("events end %v", tail)
	}
	if _, ok, _ := h.Streamed(s.Branch); ok {
		t.Fatal("the save outlives its recovery")
	}
	if sum := harness.Summary(lastOf(t, h, s.ID, harness.TypeModelCompleted)); !strings.Contains(sum, "cut: exo was killed") {
		t.Fatalf("log line: %s", sum)
	}
	if _, err := x.Prompt(context.Background(), s.ID, "go on", "test"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, "What I had written before the kill") || !strings.Contains(body, "exo was killed") {
		t.Fatalf("the next prompt does not hold the killed answer: %s", body)
	}
}

// TestAStaleSaveIsDroppedNotRecorded: a save whose answer is in the log already (the process
// died between recording the answer and removing the save) adds nothing on the next open.
func TestAStaleSaveIsDroppedNotRecorded(t *testing.T) {
	h, s, _ := chatSession(t, providertest.ChatReply{Text: "whole answer"})
	x := New(h, Options{Headless: true})
	if _, err := x.Prompt(context.Background(), s.ID, "explain", "test"); err != nil {
		t.Fatal(err)
	}
	req := lastOf(t, h, s.ID, harness.TypeModelRequested).Seq
	if err := h.SaveStreamed(s.ID, s.Branch, req, harness.StreamedAnswer{Model: "chat", Text: "whole ans"}); err != nil {
		t.Fatal(err)
	}
	before, _ := h.Events(s.ID, 0, 0)
	if rep := h.Recover(); len(rep.Interrupted) != 0 || len(rep.Problems) != 0 {
		t.Fatalf("recovery: %+v", rep)
	}
	after, _ := h.Events(s.ID, 0, 0)
	if len(after) != len(before) {
		t.Fatalf("%d events recorded for an answer already in the log", len(after)-len(before))
	}
	if _, ok, _ := h.Streamed(s.Branch); ok {
		t.Fatal("the stale save was kept")
	}
}
