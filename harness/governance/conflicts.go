package governance

import (
	"cmp"
	"maps"
	"path/filepath"
	"slices"
	"sync"

	"exo/harness"
	"exo/store"
)

// Member is one session's changed files, for conflict detection.
type Member struct {
	ID        string
	Name      string
	Branch    string
	Workspace string
	// Node is the daemon that runs the session when it is another daemon's on a shared store
	// ("" for this daemon's own): its conflicts are recorded there, not here.
	Node string
	// Project is the workspace of the session's root ancestor: forks in their own copies of a
	// project share it, so their workspace-relative paths are compared.
	Project string
	Files   map[string]*Touch
}

// Local reports whether the session is this daemon's own.
func (m Member) Local() bool { return m.Node == "" }

// Conflict is a path changed by two sessions of one project, each by events of its own.
type Conflict struct {
	Path   string `json:"path"`
	A      string `json:"a"`
	AName  string `json:"a_name"`
	B      string `json:"b"`
	BName  string `json:"b_name"`
	Shared bool   `json:"shared"` // one workspace: the later change overwrote the earlier
}

// DetectConflicts finds the paths that two or more sessions of the same project changed. A
// change a fork inherited from its parent's history is not its own, so a parent and its fork
// conflict only over paths both changed after the fork.
func DetectConflicts(ms []Member) []Conflict {
	var out []Conflict
	for i := range ms {
		for j := i + 1; j < len(ms); j++ {
			out = append(out, pairConflicts(ms[i], ms[j])...)
		}
	}
	slices.SortFunc(out, func(x, y Conflict) int {
		return cmp.Or(cmp.Compare(x.Path, y.Path), cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B))
	})
	return out
}

// pairConflicts compares two members.
func pairConflicts(a, b Member) []Conflict {
	if a.Project != b.Project {
		return nil
	}
	var out []Conflict
	for path, ta := range a.Files {
		tb, ok := b.Files[path]
		if !ok || !hasOwn(ta.Origins, tb.Origins) || !hasOwn(tb.Origins, ta.Origins) {
			continue
		}
		out = append(out, Conflict{Path: path, A: a.ID, AName: a.Name, B: b.ID, BName: b.Name,
			Shared: filepath.Clean(a.Workspace) == filepath.Clean(b.Workspace)})
	}
	return out
}

// hasOwn reports whether xs has a change that ys lacks. An event (branch, seq) is in a history
// that changed the same path at (branch, seq' ≥ seq), so comparing the latest seq per branch
// is exact.
func hasOwn(xs, ys map[string]uint64) bool {
	for br, seq := range xs {
		if seq > ys[br] {
			return true
		}
	}
	return false
}

// ConflictRecords returns, per session id, the conflict.detected records not yet in that
// session's State, so each conflict is recorded once per pair and path on both sessions (on
// this daemon's own; another daemon's session gets its record from that daemon).
func ConflictRecords(cs []Conflict, ms []Member, states map[string]*State) map[string][]store.Record {
	byID := map[string]Member{}
	for _, m := range ms {
		byID[m.ID] = m
	}
	out := map[string][]store.Record{}
	add := func(self, other, path string, shared bool) {
		if st := states[self]; st != nil && st.hasConflict(other, path) {
			return
		}
		o := byID[other]
		if !byID[self].Local() {
			return // the other daemon records it on its own session
		}
		out[self] = append(out[self], harness.MustRecord(TypeConflictDetected, harness.ActorHarness,
			ConflictDetected{Path: path, With: other, WithName: o.Name, Workspace: o.Workspace, Node: o.Node, Shared: shared}))
	}
	for _, c := range cs {
		add(c.A, c.B, c.Path, c.Shared)
		add(c.B, c.A, c.Path, c.Shared)
	}
	return out
}

// hasConflict reports whether a conflict with other over path is recorded.
func (s *State) hasConflict(other, path string) bool {
	return slices.ContainsFunc(s.Conflicts, func(c ConflictDetected) bool { return c.With == other && c.Path == path })
}

// Members loads every unfinished session's State and Member, with project roots resolved:
// this daemon's sessions and, on a shared store, the other daemons' (whose changed files are
// read from the shared log).
func Members(h *harness.Harness) ([]Member, map[string]*State, error) { return members(h, replay(h)) }

// members is Members with a given loader.
func members(h *harness.Harness, load loader) ([]Member, map[string]*State, error) {
	all, byID, nodes, err := withPeerSessions(h)
	if err != nil {
		return nil, nil, err
	}
	var ms []Member
	states := map[string]*State{}
	for _, s := range all {
		st, err := load(s)
		if err != nil {
			if nodes[s.ID] != "" {
				continue // another daemon's session that cannot be read now
			}
			return nil, nil, err
		}
		states[s.ID] = st
		if st.Finished {
			continue
		}
		ms = append(ms, Member{ID: s.ID, Name: s.Name, Branch: s.Branch, Workspace: s.Workspace, Node: nodes[s.ID],
			Project: projectRoot(byID, s), Files: st.Files})
	}
	return ms, states, nil
}

// withPeerSessions lists this daemon's sessions and, on a shared store, the other daemons'
// after them (unreadable peers only hide themselves), by id, with the node of each peer's.
func withPeerSessions(h *harness.Harness) ([]*harness.Session, map[string]*harness.Session, map[string]string, error) {
	all, err := h.Sessions()
	if err != nil {
		return nil, nil, nil, err
	}
	byID := map[string]*harness.Session{}
	for _, s := range all {
		byID[s.ID] = s
	}
	nodes := map[string]string{}
	peers, _, err := h.PeerSessions()
	for _, p := range peers {
		if _, dup := byID[p.Session.ID]; !dup && err == nil {
			all = append(all, p.Session)
			byID[p.Session.ID], nodes[p.Session.ID] = p.Session, p.Node
		}
	}
	return all, byID, nodes, nil
}

// projectRoot is the project a session works on, compared across machines: its project id
// (the workspace's git remote or root commit, harness.ProjectIDKey), else the harness's
// "project" setting (forks in their own copies record it), else the workspace, each from its
// oldest known ancestor that has one.
func projectRoot(byID map[string]*harness.Session, s *harness.Session) string {
	seen := map[string]bool{}
	for s.Settings[harness.ProjectIDKey] == "" && s.Settings["project"] == "" && s.Parent != "" && !seen[s.ID] {
		seen[s.ID] = true
		p, ok := byID[s.Parent]
		if !ok {
			break
		}
		s = p
	}
	if id := s.Settings[harness.ProjectIDKey]; id != "" {
		return id
	}
	return filepath.Clean(firstNonEmpty(s.Settings["project"], s.Workspace))
}

// recordMu serialises recording conflicts.
var recordMu sync.Mutex

// RecordConflicts detects conflicts among unfinished sessions and appends the new
// conflict.detected events to both sides (this daemon's own sessions). The harness calls it after each snapshot. It returns
// every current conflict.
func RecordConflicts(h *harness.Harness) ([]Conflict, error) { return recordConflicts(h, replay(h)) }

// recordConflicts is RecordConflicts with a given loader.
func recordConflicts(h *harness.Harness, load loader) ([]Conflict, error) {
	recordMu.Lock() // two runs at once would both record a new conflict
	defer recordMu.Unlock()
	ms, states, err := members(h, load)
	if err != nil {
		return nil, err
	}
	cs := DetectConflicts(ms)
	recs := ConflictRecords(cs, ms, states)
	for _, id := range slices.Sorted(maps.Keys(recs)) {
		if _, err := h.Append(id, recs[id]...); err != nil {
			return cs, err
		}
	}
	return cs, nil
}
