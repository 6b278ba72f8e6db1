package governance

import (
	"exo/harness"
)

// Summary is one session's governance at a glance, for the siblings pane.
type Summary struct {
	ID        string             `json:"id"`
	Name      string             `json:"name"`
	Project   string             `json:"project"`
	Finished  bool               `json:"finished"`
	Scope     Scope              `json:"scope"`
	Drift     Drift              `json:"drift"`
	Conflicts []ConflictDetected `json:"conflicts,omitempty"`
}

// Fleet folds every session's governance from the log: scope, drift and recorded conflicts.
// It replays each history; a long-lived UI should use a Tracker.
func Fleet(h *harness.Harness) ([]Summary, error) { return fleet(h, replay(h)) }

// fleet is Fleet with a given loader.
func fleet(h *harness.Harness, load loader) ([]Summary, error) {
	all, err := h.Sessions()
	if err != nil {
		return nil, err
	}
	byID := map[string]*harness.Session{}
	for _, s := range all {
		byID[s.ID] = s
	}
	out := make([]Summary, 0, len(all))
	for _, s := range all {
		st, err := load(s)
		if err != nil {
			return nil, err
		}
		out = append(out, Summary{ID: s.ID, Name: s.Name, Project: projectRoot(byID, s), Finished: st.Finished,
			Scope: st.Scope, Drift: st.Drift(), Conflicts: st.Conflicts})
	}
	return out, nil
}
