package governance

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"exo/harness"
)

// Sibling is another live session of the same project, as the bootstrap prompt describes it.
type Sibling struct {
	ID      string         `json:"id"`
	Name    string         `json:"name"`
	Status  harness.Status `json:"status"`
	Scope   Scope          `json:"scope"`
	Changed []string       `json:"changed,omitempty"`
	Drift   Drift          `json:"drift"`
}

// maxListed bounds the files listed per sibling in the prompt.
const maxListed = 8

// SiblingText renders the sibling-awareness paragraph of a bootstrap prompt for a session with
// scope self: each live sibling, its scope and changed files, with a warning when its scope
// overlaps self's. It returns "" when there are no siblings.
func SiblingText(self Scope, sibs []Sibling) string {
	if len(sibs) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Other sessions are working on this project at the same time (%d):\n", len(sibs))
	for _, s := range sibs {
		fmt.Fprintf(&b, "- %s (%s, drift %.2f %s): scope %s", s.Name, s.Status, s.Drift.Total, s.Drift.Level, s.Scope.String())
		if len(s.Changed) > 0 {
			fmt.Fprintf(&b, "; changed %d file(s):%s", len(s.Changed), listHead(s.Changed, maxListed))
		}
		b.WriteString("\n")
		if w := overlapWarning(self, s); w != "" {
			b.WriteString("  ⚠ " + w + "\n")
		}
	}
	b.WriteString("Do not change files another session is changing; if you must, say so to the user first.\n")
	return b.String()
}

// overlapWarning explains how a sibling's scope and changes overlap self's scope, or "".
func overlapWarning(self Scope, s Sibling) string {
	var mine []string
	for _, p := range s.Changed {
		if InScope(self, p) {
			mine = append(mine, p)
		}
	}
	overlap := ScopesOverlap(self, s.Scope)
	switch {
	case len(mine) > 0:
		return fmt.Sprintf("%s has already changed %d file(s) inside your scope:%s; coordinate before touching them.",
			s.Name, len(mine), listHead(mine, maxListed))
	case overlap:
		return fmt.Sprintf("%s's scope overlaps yours (%s vs %s): you may both change the same files.",
			s.Name, allowText(s.Scope), allowText(self))
	}
	return ""
}

func allowText(s Scope) string {
	if len(s.Allow) == 0 {
		return "everything"
	}
	return strings.Join(s.Allow, ",")
}

// ScopesOverlap reports whether two scopes may allow a common path. It is conservative: two
// allow globs overlap when the literal directory of one contains the other's.
func ScopesOverlap(a, b Scope) bool {
	if len(a.Allow) == 0 || len(b.Allow) == 0 {
		return true
	}
	for _, x := range a.Allow {
		for _, y := range b.Allow {
			if globsOverlap(x, y) {
				return true
			}
		}
	}
	return false
}

// globsOverlap compares the literal base directories of two globs.
func globsOverlap(x, y string) bool {
	bx, _ := doublestar.SplitPattern(x)
	by, _ := doublestar.SplitPattern(y)
	if !hasMeta(x) {
		bx = x
	}
	if !hasMeta(y) {
		by = y
	}
	return dirWithin(bx, by) || dirWithin(by, bx)
}

// dirWithin reports whether path a is b or under it ("." contains everything).
func dirWithin(a, b string) bool {
	return b == "." || a == b || strings.HasPrefix(a, b+"/")
}

// Siblings returns the other unfinished sessions of the same project as sessionID.
func Siblings(h *harness.Harness, sessionID string) ([]Sibling, error) {
	return siblings(h, sessionID, replay(h))
}

// siblings is Siblings with a given loader.
func siblings(h *harness.Harness, sessionID string, load loader) ([]Sibling, error) {
	ms, states, err := members(h, load)
	if err != nil {
		return nil, err
	}
	var project string
	for _, m := range ms {
		if m.ID == sessionID {
			project = m.Project
		}
	}
	var out []Sibling
	for _, m := range ms {
		if m.ID == sessionID || m.Project != project {
			continue
		}
		hs, err := h.BranchState(m.Branch)
		if err != nil {
			if !m.Local() {
				continue
			}
			return nil, err
		}
		st := states[m.ID]
		out = append(out, Sibling{ID: m.ID, Name: m.Name, Status: hs.Status, Scope: st.Scope,
			Changed: st.Changed(), Drift: st.Drift()})
	}
	return out, nil
}
