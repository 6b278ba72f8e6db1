package executor

import (
	"context"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/provider/providertest"
)

// TestCancelDuringAToolEndsTheTurnOnce: Ctrl-C while a tool runs records one turn.cancelled
// (the loop used to go round once more and record a second one).
func TestCancelDuringAToolEndsTheTurnOnce(t *testing.T) {
	h, s, _ := chatSession(t,
		providertest.ChatReply{ToolCalls: []providertest.ChatToolCall{{ID: "c1", Name: "bash", Args: `{"command":"sleep 60"}`}}},
		providertest.ChatReply{Text: "never asked for"},
	)
	x := New(h, Options{Headless: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			evs, _ := h.Events(s.ID, 0, 0)
			for _, e := range evs {
				if e.Type == harness.TypeToolStarted {
					cancel()
					return
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	res, err := x.Prompt(ctx, s.ID, "sleep a minute", "test")
	if err != nil || !res.Cancelled {
		t.Fatalf("%+v %v", res, err)
	}
	evs, _ := h.Events(s.ID, 0, 0)
	n := 0
	for _, e := range evs {
		if e.Type == harness.TypeTurnCancelled {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d turn.cancelled events, want 1", n)
	}
}
