package governance

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// ErrWidening means a fork or subagent asked for more than its parent's scope.
var ErrWidening = errors.New("scope would widen the parent's")

// Narrow returns the effective scope of a fork or subagent that asks for child under parent.
// The child may only narrow: every allow glob must lie within a parent allow glob, its budget may
// not exceed the parent's, and record may not replace revert. The parent's deny and boundary
// globs always carry over; fields the child leaves empty are inherited.
func Narrow(parent, child Scope) (Scope, error) {
	if err := ValidateScope(child); err != nil {
		return Scope{}, err
	}
	out := Scope{
		Allow:    child.Allow,
		Deny:     union(parent.Deny, child.Deny),
		Boundary: union(parent.Boundary, child.Boundary),
		Budget:   child.Budget,
		Policy:   child.Policy,
	}
	if len(out.Allow) == 0 {
		out.Allow = parent.Allow
	}
	for _, c := range child.Allow {
		if !withinAny(parent.Allow, c) {
			return Scope{}, fmt.Errorf("allow %s is not within the parent's allow (%s): %w",
				c, strings.Join(parent.Allow, ", "), ErrWidening)
		}
	}
	var err error
	if out.Budget, err = narrowBudget(parent.Budget, child.Budget); err != nil {
		return Scope{}, err
	}
	if parent.EffectivePolicy() == PolicyRevert {
		if child.Policy == PolicyRecord {
			return Scope{}, fmt.Errorf("policy record under a parent with revert: %w", ErrWidening)
		}
		out.Policy = PolicyRevert
	} else if out.Policy == "" {
		out.Policy = parent.Policy
	}
	return out, nil
}

// narrowBudget returns the child's budget if it does not exceed the parent's.
func narrowBudget(parent, child int) (int, error) {
	switch {
	case child == 0:
		return parent, nil
	case parent > 0 && child > parent:
		return 0, fmt.Errorf("budget %d exceeds the parent's %d: %w", child, parent, ErrWidening)
	}
	return child, nil
}

// withinAny reports whether every path glob c matches is also matched by some glob of parents.
// An empty parent list allows everything.
func withinAny(parents []string, c string) bool {
	if len(parents) == 0 {
		return true
	}
	for _, p := range parents {
		if within(p, c) {
			return true
		}
	}
	return false
}

// within is a conservative containment test of glob c in glob p: it may reject a narrowing it
// cannot prove, but never accepts a widening.
func within(p, c string) bool {
	if p == c || p == "**" {
		return true
	}
	if !hasMeta(c) {
		return doublestar.MatchUnvalidated(p, c) // a literal path
	}
	base, ok := strings.CutSuffix(p, "/**")
	if !ok || hasMeta(base) {
		return false
	}
	cbase, _ := doublestar.SplitPattern(c)
	return cbase == base || strings.HasPrefix(cbase, base+"/")
}

// hasMeta reports whether a glob has any pattern characters.
func hasMeta(g string) bool { return strings.ContainsAny(g, `*?[]{}\`) }
