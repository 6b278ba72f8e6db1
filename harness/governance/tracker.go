package governance

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"exo/harness"
)

// Tracker keeps every branch's State in memory and brings one up to date by reading only the
// events appended since it was last asked for, so that drift, conflicts and siblings cost work
// proportional to new events. It is safe for concurrent use; the States it returns are copies.
type Tracker struct {
	h      *harness.Harness
	mu     sync.Mutex
	states map[string]*State // by branch
}

// NewTracker returns an empty tracker over a harness.
func NewTracker(h *harness.Harness) *Tracker {
	return &Tracker{h: h, states: map[string]*State{}}
}

// State returns the up-to-date State of a session's current branch.
func (t *Tracker) State(sessionID string) (*State, error) {
	s, err := t.h.Session(sessionID)
	if err != nil {
		return nil, err
	}
	return t.load(s)
}

// StateOf returns the governance state of a session given by its record (one another daemon
// runs on a shared store, which this harness cannot look up by id).
func (t *Tracker) StateOf(s *harness.Session) (*State, error) { return t.load(s) }

// load brings the State of s's current branch up to date and returns a copy.
func (t *Tracker) load(s *harness.Session) (*State, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.states[s.Branch]
	if st == nil {
		st = NewState(s.ID)
	}
	evs, err := t.h.BranchEvents(s.Branch, st.Head+1, 0)
	if err != nil {
		return nil, fmt.Errorf("governance state of %s: %w", s.Name, err)
	}
	for _, e := range evs {
		st.Apply(e)
	}
	t.states[s.Branch] = st
	return st.Clone(), nil
}

// Members is the package-level Members through the tracker.
func (t *Tracker) Members() ([]Member, map[string]*State, error) { return members(t.h, t.load) }

// Fleet is the package-level Fleet through the tracker.
func (t *Tracker) Fleet() ([]Summary, error) { return fleet(t.h, t.load) }

// Siblings is the package-level Siblings through the tracker.
func (t *Tracker) Siblings(sessionID string) ([]Sibling, error) {
	return siblings(t.h, sessionID, t.load)
}

// RecordConflicts is the package-level RecordConflicts through the tracker.
func (t *Tracker) RecordConflicts() ([]Conflict, error) { return recordConflicts(t.h, t.load) }

// Clone returns a deep copy of the state.
func (s *State) Clone() *State {
	c := *s
	c.Files = make(map[string]*Touch, len(s.Files))
	for p, tc := range s.Files {
		cp := *tc
		cp.Origins = maps.Clone(tc.Origins)
		c.Files[p] = &cp
	}
	c.Scope.Allow, c.Scope.Deny, c.Scope.Boundary = slices.Clone(s.Scope.Allow), slices.Clone(s.Scope.Deny), slices.Clone(s.Scope.Boundary)
	c.Conflicts = slices.Clone(s.Conflicts)
	c.Incoming = slices.Clone(s.Incoming)
	c.Delivered = maps.Clone(s.Delivered)
	c.Tools = maps.Clone(s.Tools)
	c.Failures = slices.Clone(s.Failures)
	c.Violations = slices.Clone(s.Violations)
	c.writes = maps.Clone(s.writes)
	return &c
}

// loader folds the State of a session's current branch.
type loader func(s *harness.Session) (*State, error)

// replay is the loader that folds from the log every time.
func replay(h *harness.Harness) loader {
	return func(s *harness.Session) (*State, error) { return LoadBranch(h, s.ID, s.Branch) }
}
