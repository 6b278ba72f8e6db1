package executor

import (
	"context"
	"errors"
	"time"

	"exo/harness"
)

// wakePoll is how often a watcher with an unseen completion checks whether the session became
// idle (only while such a completion waits).
const wakePoll = 50 * time.Millisecond

// WatchTasks wakes an idle session: whenever a background task or a subagent of sessionID ends
// and the model has not seen it yet, it runs a follow-up turn as soon as no turn is running, so
// the agent reacts to the completion note in its prompt. It returns when ctx ends. onTurn, if
// not nil, receives the result of each follow-up turn. Only completions that happen while it
// watches wake the session.
func (x *Executor) WatchTasks(ctx context.Context, sessionID string, onTurn func(Result, error)) error {
	ch, stop := x.h.Subscribe(256)
	defer stop()
	var tick <-chan time.Time
	// Completions recorded before the watch began (e.g. while exo was not running) do not start
	// a turn on their own: opening a session must not spend tokens by itself. They reach the
	// model with the next prompt.
	waiting := false
	for {
		if waiting {
			t := time.NewTimer(wakePoll)
			tick = t.C
		} else {
			tick = nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case n, ok := <-ch:
			if !ok {
				return nil
			}
			if n.Session == sessionID && hasCompletion(n.Events) {
				waiting = true
			}
		case <-tick:
		}
		if !waiting || !x.unseenCompletion(sessionID) {
			waiting = false
			continue
		}
		res, err := x.RunTurn(ctx, sessionID)
		if errors.Is(err, ErrBusy) {
			continue // someone else's turn runs: check again on the next tick
		}
		waiting = false
		if onTurn != nil {
			onTurn(res, err)
		}
	}
}

// hasCompletion reports whether events hold a task or subagent completion.
func hasCompletion(evs []harness.Event) bool {
	for _, e := range evs {
		if e.Type == harness.TypeTaskCompleted || e.Type == harness.TypeSubagentCompleted {
			return true
		}
	}
	return false
}

// unseenCompletion reports whether the session is idle with a completion note the model has
// not been sent yet; while a turn runs it says true, to look again once the turn is over.
func (x *Executor) unseenCompletion(sessionID string) bool {
	if !x.claim(sessionID) {
		return true
	}
	defer x.release(sessionID)
	s, err := x.h.Session(sessionID)
	if err != nil {
		return false
	}
	m, err := x.h.Model(s.Settings["model"])
	if err != nil {
		return false
	}
	v, err := x.ViewOf(s.Branch, m.ModelID)
	if err != nil {
		return false
	}
	return v.comp.lastNote > v.comp.lastRequest
}

// UnseenCompletion reports whether a session is idle with a task or subagent completion the
// model has not been sent yet (true while a turn runs: look again when it ends).
func (x *Executor) UnseenCompletion(sessionID string) bool { return x.unseenCompletion(sessionID) }

// HasCompletion reports whether events hold a task or subagent completion.
func HasCompletion(evs []harness.Event) bool { return hasCompletion(evs) }
