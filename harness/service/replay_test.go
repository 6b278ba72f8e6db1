package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"exo/harness"
	"exo/harness/api"
)

// answerWhenAsked answers the first approval a session asks with decision.
func answerWhenAsked(t *testing.T, svc *Service, h *harness.Harness, session, decision string) {
	t.Helper()
	ch, stop := h.SubscribeChanges(256)
	go func() {
		defer stop()
		for n := range ch {
			for _, e := range n.Events {
				if n.Session == session && e.Type == api.TypeApprovalRequested {
					p, _ := api.Decode(e)
					_ = svc.Approve(context.Background(), session, p.(*api.ApprovalRequested).CallID, decision)
					return
				}
			}
		}
	}()
}

// TestReplayAnswersApprovalsAsRecorded: the user allowed the original's write once; the replay
// asks for the same write (same tool, same arguments) and gets the same answer without the
// user, so its turn runs to the end; a set member's scoreboard counts the approval asked.
func TestReplayAnswersApprovalsAsRecorded(t *testing.T) {
	svc, h, s, _ := approvalHarness(t)
	ctx := context.Background()
	answerWhenAsked(t, svc, h, s.ID, "once")
	ts, err := svc.StartTurn(ctx, api.TurnRequest{Session: s.ID, Text: "go", Approval: "ask"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.WaitTurn(ctx, s.ID, ts.ID); err != nil {
		t.Fatal(err)
	}
	set, err := svc.Replay(ctx, api.ReplayRequest{Session: s.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Rows) != 1 || set.Original == nil {
		t.Fatalf("the replay's set: %+v", set)
	}
	m := set.Rows[0]
	// The member ends once its turn ended and nothing waits: wait for attempt.ended.
	ch, stop := h.SubscribeChanges(256)
	defer stop()
	for {
		if set, err = svc.AttemptSet(ctx, set.ID); err != nil {
			t.Fatal(err)
		}
		if set.Done() {
			break
		}
		<-ch
	}
	r := set.Rows[0]
	if r.Status != api.AttemptDone || r.Approvals != 1 || set.Original.Approvals != 1 {
		t.Fatalf("the replay %+v, the original %+v", r, *set.Original)
	}
	me, err := h.Session(m.Session)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(me.Workspace, "written.txt")); err != nil {
		t.Fatalf("the replayed write did not run: %v", err)
	}
}
