package executor

import (
	"context"
	"testing"
	"time"

	"exo/harness"
)

// TestToolDurationExcludesApprovalWait: a call that waits for the user's approval reports the
// time the tool ran, not the time the user took to answer.
func TestToolDurationExcludesApprovalWait(t *testing.T) {
	h, s, _ := setup(t, "demo.yaml")
	x := New(h, Options{Approvals: map[string]string{"list_dir": "ask"}})
	ch, stop := h.Subscribe(256)
	defer stop()
	const wait = 1500 * time.Millisecond
	go func() {
		for n := range ch {
			for _, e := range n.Events {
				if e.Type != harness.TypeApprovalRequested {
					continue
				}
				p, _ := harness.Decode(e)
				time.Sleep(wait)
				h.Append(s.ID, harness.MustRecord(harness.TypeApprovalResolved, harness.ActorUser,
					harness.ApprovalResolved{CallID: p.(*harness.ApprovalRequested).CallID, Decision: DecisionOnce}))
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := x.Prompt(ctx, s.ID, "go", "test"); err != nil {
		t.Fatal(err)
	}
	evs, _ := h.Events(s.ID, 0, 0)
	for _, e := range evs {
		if e.Type != harness.TypeToolCompleted {
			continue
		}
		tc, _ := harness.Decode(e)
		if c := tc.(*harness.ToolCompleted); c.Tool == "list_dir" {
			if c.IsError || time.Duration(c.DurationMs)*time.Millisecond >= wait {
				t.Fatalf("list_dir: %d ms (approval waited %s), error %v: %s", c.DurationMs, wait, c.IsError, c.Output)
			}
			return
		}
	}
	t.Fatal("no list_dir result")
}
