package api

import "context"

// EventPager is what a Client may also offer when it reads events in its own process (the
// daemon's service, for a command line a thin client relays): a branch's events from..to (to 0:
// the head) handed to fn a page at a time, in memory the next page reuses. fn must not keep
// the slice or an event's Data once it returns. A long history read this way (exo log) costs no
// allocation per event, where Events copies each into a slice of its own.
type EventPager interface {
	EventPages(ctx context.Context, branch string, from, to uint64, fn func([]Event) error) error
}

// eventPage is how many events EventPagesOf asks Events for at a time.
const eventPage = 2048

// EventPagesOf reads events from..to (to 0: the head) of a branch with c's EventPages when it
// has it, else through Events a page at a time.
func EventPagesOf(ctx context.Context, c Client, branch string, from, to uint64, fn func([]Event) error) error {
	if p, ok := c.(EventPager); ok {
		return p.EventPages(ctx, branch, from, to, fn)
	}
	from = max(from, 1)
	for to == 0 || from <= to {
		last := from + eventPage - 1
		if last < from {
			last = ^uint64(0)
		}
		if to != 0 {
			last = min(to, last)
		}
		evs, err := c.Events(ctx, branch, from, last)
		if err != nil || len(evs) == 0 {
			return err
		}
		if err := fn(evs); err != nil {
			return err
		}
		from = evs[len(evs)-1].Seq + 1
	}
	return nil
}
