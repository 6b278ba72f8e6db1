package service

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/api"
)

// TestFinishedTurnsBoundedByBytes: the results of finished turns (each holding its answer whole)
// are kept for WaitTurn up to 256 KiB past the newest four, and a session's
// last turn goes with its result. The daemon kept 256 answers and every session's last one for its
// life: after 300 sessions of a 160 KB answer, 41 MiB.
func TestFinishedTurnsBoundedByBytes(t *testing.T) {
	t.Parallel()
	s := &Service{turns: map[string]*turnRun{}, running: map[string]*turnRun{}, last: map[string]*turnRun{}}
	answer := strings.Repeat("abcdefghij", 16_000)
	var ids []string
	for i := range 300 {
		r := &turnRun{id: "turn-" + strconv.Itoa(i), session: "session-" + strconv.Itoa(i), done: make(chan struct{}),
			cancel: func() {}}
		s.finish(r, harness.TurnResult{Response: answer}, nil)
		ids = append(ids, r.id)
	}
	held := 0
	for _, r := range s.turns {
		held += len(r.res.Response)
	}
	for _, r := range s.last {
		if s.turns[r.id] != r {
			held += len(r.res.Response)
		}
	}
	if limit := 4*len(answer) + 256<<10; held > limit {
		t.Fatalf("finished turns hold %d bytes of answers (%d turns, %d sessions' last), more than %d", held, len(s.turns), len(s.last), limit)
	}
	if len(s.last) > len(s.order) || len(s.turns) != len(s.order) {
		t.Fatalf("%d last turns and %d turns for %d kept", len(s.last), len(s.turns), len(s.order))
	}
	ctx := context.Background()
	for _, id := range ids[len(ids)-4:] {
		if res, err := s.WaitTurn(ctx, "", id); err != nil || res.Response != answer {
			t.Fatalf("recent turn %s: %d bytes, %v", id, len(res.Response), err)
		}
	}
	if _, err := s.WaitTurn(ctx, "", ids[0]); !errors.Is(err, api.ErrNotFound) {
		t.Fatalf("the oldest turn: %v, want not found", err)
	}
	// Small results are kept up to keepFinished turns, as before.
	for i := range keepFinished {
		s.finish(&turnRun{id: "small-" + strconv.Itoa(i), session: "s", done: make(chan struct{}), cancel: func() {}},
			harness.TurnResult{Response: "ok"}, nil)
	}
	if len(s.order) != keepFinished {
		t.Fatalf("%d small turns kept, want %d", len(s.order), keepFinished)
	}
	if _, err := s.WaitTurn(ctx, "", "small-0"); err != nil {
		t.Fatalf("the oldest small turn: %v", err)
	}
}
