package executor

import (
	"time"

	"exo/harness"
)

// HoldWait bounds how long an external agent's events stay held for the commit of what follows
// them (see harness.Hold): its answer for its tool call's result, a tool.started for the call's
// result: a call still running then has its start committed on its own (while it runs),
// so that a crash during a long tool finds it started and closes it as interrupted. A call that
// ends sooner commits its start, its result and the workspace snapshot in one transaction.
const HoldWait = 25 * time.Millisecond

// callEvent records a tool call's start or result: at once, or for an external agent's call
// (t.hold) held for the commit of what follows it, which release makes before the agent is told
// the result. Held events keep the log's order: any other append to the session commits them
// first.
func (t *turn) callEvent(typ string, payload any) error {
	if !t.hold {
		return t.append(typ, payload)
	}
	t.x.h.Hold(t.s.ID, t.s.Branch, HoldWait, harness.MustRecord(typ, t.x.actor(), payload))
	return nil
}

// release commits what the turn's calls hold (nothing unless t.hold) and returns the first
// failure to commit them.
func (t *turn) release() error {
	if !t.hold {
		return nil
	}
	return t.x.h.Release(t.s.ID)
}
