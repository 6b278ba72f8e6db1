package app

import (
	"testing"

	"exo/harness/api"
)

// A batch of notices goes to the app as soon as a turn ends in it, not at the end of the
// gathering window: what came before the end is in it, what comes after waits for the next one.
func TestNoticesBatchEndsWithTheTurn(t *testing.T) {
	t.Parallel()
	ch := make(chan api.Notice, 4)
	ch <- api.Notice{Session: "s", Delta: "the answer's "}
	ch <- api.Notice{Session: "s", Delta: "end"}
	ch <- api.Notice{Session: "s", Turn: &api.TurnNotice{ID: "t1"}}
	ch <- api.Notice{Session: "s", Turn: &api.TurnNotice{ID: "t2", Running: true}}
	msg, ok := waitNotices(ch)().(noticesMsg)
	if !ok {
		t.Fatalf("not a batch of notices: %T", msg)
	}
	if len(msg.batch) != 3 || msg.batch[2].Turn == nil || msg.batch[2].Turn.ID != "t1" {
		t.Fatalf("batch: %+v, want the two deltas and the turn's end", msg.batch)
	}
	if len(ch) != 1 {
		t.Fatalf("%d notices left after the turn's end, want the next turn's start", len(ch))
	}

	// A turn's end first in a batch goes at once, alone.
	<-ch // the start of t2, already read by the app in this story
	ch <- api.Notice{Session: "s", Turn: &api.TurnNotice{ID: "t2"}}
	ch <- api.Notice{Session: "s", Delta: "a later turn's text"}
	msg = waitNotices(ch)().(noticesMsg)
	if len(msg.batch) != 1 || msg.batch[0].Turn == nil || msg.batch[0].Turn.ID != "t2" || len(ch) != 1 {
		t.Fatalf("batch: %+v, %d left", msg.batch, len(ch))
	}
}
