package api

import (
	"context"
	"errors"
	"testing"
)

// eventsOnly answers Events from a history of n events, as the daemon's HTTP API does (a range
// past the head is cut at it); its other methods are not there.
type eventsOnly struct {
	Client
	n     uint64
	calls int
}

func (c *eventsOnly) Events(_ context.Context, branch string, from, to uint64) ([]Event, error) {
	c.calls++
	if to == 0 || to > c.n {
		to = c.n
	}
	var out []Event
	for s := max(from, 1); s <= to; s++ {
		out = append(out, Event{Branch: branch, Seq: s})
	}
	return out, nil
}

// TestEventPagesOfFallsBackToEvents reads ranges through a client without EventPages: every
// event once, in order, a page per request, and fn's error returned as it is.
func TestEventPagesOfFallsBackToEvents(t *testing.T) {
	t.Parallel()
	for _, r := range []struct{ from, to, want uint64 }{{0, 0, 5000}, {1, 0, 5000}, {2048, 2049, 2}, {4097, 0, 904}, {5000, 0, 1}, {5001, 0, 0}, {10, 9, 0}} {
		c := &eventsOnly{n: 5000}
		next, got := max(r.from, 1), uint64(0)
		err := EventPagesOf(context.Background(), c, "b", r.from, r.to, func(evs []Event) error {
			if len(evs) > eventPage {
				t.Fatalf("%+v: a page of %d", r, len(evs))
			}
			for _, e := range evs {
				if e.Seq != next {
					t.Fatalf("%+v: seq %d, want %d", r, e.Seq, next)
				}
				next++
				got++
			}
			return nil
		})
		if err != nil || got != r.want {
			t.Fatalf("%+v: %d events (%v), want %d", r, got, err, r.want)
		}
	}
	stop := errors.New("stop")
	c := &eventsOnly{n: 5000}
	if err := EventPagesOf(context.Background(), c, "b", 1, 0, func([]Event) error { return stop }); err != stop || c.calls != 1 {
		t.Fatalf("fn's error: %v after %d requests", err, c.calls)
	}
	// A range ending at the largest seq does not wrap around.
	c = &eventsOnly{n: 3}
	if err := EventPagesOf(context.Background(), c, "b", ^uint64(0)-5, 0, func([]Event) error { return nil }); err != nil || c.calls != 1 {
		t.Fatalf("range at the top: %v after %d requests", err, c.calls)
	}
}
