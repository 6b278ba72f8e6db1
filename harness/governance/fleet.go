package governance

import (
	"exo/harness"
)

// Summary is one session's governance at a glance, for the siblings pane.
type Summary struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Node is the daemon that runs the session when it is another daemon's on a shared store
	// ("" for this daemon's own).
	Node      string             `json:"node,omitempty"`
	Project   string             `json:"project"`
	Finished  bool               `json:"finished"`
	Scope     Scope              `json:"scope"`
	Drift     Drift              `json:"drift"`
	Conflicts []ConflictDetected `json:"conflicts,omitempty"`
}

// Fleet folds every session's governance from the log: scope, drift and recorded conflicts,
// this daemon's sessions and, on a shared store, the other daemons' (marked with their node;
// one whose history cannot be read now is left out). It replays each history; a long-lived UI
// should use a Tracker.
func Fleet(h *harness.Harness) ([]Summary, error) { return fleet(h, replay(h)) }

// fleet is Fleet with a given loader.
func fleet(h *harness.Harness, load loader) ([]Summary, error) {
	all, byID, nodes, err := withPeerSessions(h)
	if err != nil {
		return nil, err
	}
	out := make([]Summary, 0, len(all))
	for _, s := range all {
		st, err := load(s)
		if err != nil {
			if nodes[s.ID] != "" {
				continue // another daemon's session that cannot be read now
			}
			return nil, err
		}
		out = append(out, Summary{ID: s.ID, Name: s.Name, Node: nodes[s.ID], Project: projectRoot(byID, s), Finished: st.Finished,
			Scope: st.Scope, Drift: st.Drift(), Conflicts: st.Conflicts})
	}
	return out, nil
}
