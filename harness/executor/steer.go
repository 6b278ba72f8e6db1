package executor

import (
	"fmt"

	"exo/harness"
	"exo/harness/api"
)

// takeSteers records, as prompt.steered, the prompts queued to steer the running turn of a
// session: taken at a step, after the tool results of the step before, so the model's next
// call sees them as the user's message at that point (see api's queue_events.go).
func (x *Executor) takeSteers(sessionID, branch string) error {
	x.queueMu.Lock()
	defer x.queueMu.Unlock()
	st, err := x.h.BranchState(branch)
	if err != nil {
		return err
	}
	for _, q := range st.Queued {
		if !q.Steer {
			continue
		}
		if _, err := x.h.AppendOn(sessionID, branch, harness.MustRecord(api.TypePromptSteered, harness.ActorUser,
			api.PromptSteered{ID: q.ID, Text: q.Text, Source: q.Source})); err != nil {
			return fmt.Errorf("steer the turn with a queued prompt: %w", err)
		}
	}
	return nil
}

// Unqueue takes a queued prompt out of a session's queue (prompt.unqueued with reason); it
// reports false when the prompt is not queued (sent, steered or taken back already).
func (x *Executor) Unqueue(sessionID, branch, id, reason string) (bool, error) {
	x.queueMu.Lock()
	defer x.queueMu.Unlock()
	st, err := x.h.BranchState(branch)
	if err != nil {
		return false, err
	}
	found := false
	for _, q := range st.Queued {
		found = found || q.ID == id
	}
	if !found {
		return false, nil
	}
	_, err = x.h.AppendOn(sessionID, branch, harness.MustRecord(api.TypePromptUnqueued, harness.ActorUser,
		api.PromptUnqueued{ID: id, Reason: reason}))
	return err == nil, err
}
