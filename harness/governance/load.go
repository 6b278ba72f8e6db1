package governance

import (
	"fmt"

	"exo/harness"
)

// Load folds the governance State of a session's current history from the log.
func Load(h *harness.Harness, sessionID string) (*State, error) {
	s, err := h.Session(sessionID)
	if err != nil {
		return nil, err
	}
	return LoadBranch(h, s.ID, s.Branch)
}

// LoadBranch folds the State of one branch of session id from the log.
func LoadBranch(h *harness.Harness, sessionID, branch string) (*State, error) {
	evs, err := h.BranchEvents(branch, 1, 0)
	if err != nil {
		return nil, fmt.Errorf("governance state of %s: %w", sessionID, err)
	}
	st := NewState(sessionID)
	for _, e := range evs {
		st.Apply(e)
	}
	return st, nil
}

// CurrentScope returns a session's scope as folded from its history (the zero Scope, which
// allows the whole workspace minus boundaries, when none was set).
func CurrentScope(h *harness.Harness, sessionID string) (Scope, error) {
	st, err := Load(h, sessionID)
	if err != nil {
		return Scope{}, err
	}
	return st.Scope, nil
}
