package governance

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// LockPath is the compiled policy lock, relative to the project root.
const LockPath = ".exo/policy.lock"

// Errors a scope check wraps.
var (
	ErrOutOfScope = errors.New("outside the session's scope")
	ErrBoundary   = errors.New("boundary path")
	ErrBadScope   = errors.New("invalid scope")
)

// ScopeError is a refused path, with a message the model can act on.
type ScopeError struct {
	Path string
	Rule string // allow, deny:GLOB, boundary:GLOB, absolute, escape
	Msg  string
	Err  error
}

// Error returns the message written for the model.
func (e *ScopeError) Error() string { return e.Msg }

// Unwrap returns the sentinel error behind the refusal.
func (e *ScopeError) Unwrap() error { return e.Err }

// CheckPath refuses a workspace-relative path that the session may not change: absolute, escaping,
// boundary, denied or not allowed.
func CheckPath(s Scope, p string) error {
	c, err := CleanPath(p)
	if err != nil {
		return pathError(s, p, err)
	}
	if g, ok := firstMatch(s.Boundaries(), c); ok {
		return &ScopeError{Path: c, Rule: "boundary:" + g, Err: ErrBoundary,
			Msg: fmt.Sprintf("path %s is a boundary path (%s) that no session may change; %s", c, g, allowedText(s))}
	}
	if g, ok := firstMatch(s.Deny, c); ok {
		return &ScopeError{Path: c, Rule: "deny:" + g, Err: ErrOutOfScope,
			Msg: fmt.Sprintf("path %s is outside this session's scope (deny %s); %s", c, g, allowedText(s))}
	}
	if !allows(s, c) {
		return &ScopeError{Path: c, Rule: "allow", Err: ErrOutOfScope,
			Msg: fmt.Sprintf("path %s is outside this session's scope (not in allow); %s", c, allowedText(s))}
	}
	return nil
}

// pathError explains a path that is not a clean relative one.
func pathError(s Scope, p string, err error) error {
	rule, msg := "path", fmt.Sprintf("path %q is not a file path: %v", p, err)
	switch {
	case errors.Is(err, ErrAbsolute):
		rule, msg = "absolute", fmt.Sprintf("path %s is absolute; give a path relative to the workspace root", p)
	case errors.Is(err, ErrEscape):
		rule, msg = "escape", fmt.Sprintf("path %s escapes the workspace; use a path inside it, relative to the workspace root", p)
	}
	return &ScopeError{Path: p, Rule: rule, Msg: msg, Err: err}
}

// InScope reports whether a clean path is allowed and not denied (boundaries aside): the
// "in-scope" of the drift formula.
func InScope(s Scope, p string) bool {
	c, err := CleanPath(p)
	if err != nil {
		return false
	}
	_, denied := firstMatch(s.Deny, c)
	return !denied && allows(s, c)
}

// IsBoundary reports whether a path is a boundary path; unclean paths count as boundary.
func IsBoundary(s Scope, p string) bool {
	c, err := CleanPath(p)
	if err != nil {
		return true
	}
	_, ok := firstMatch(s.Boundaries(), c)
	return ok
}

// allows reports whether a clean path matches the allow list (an empty list allows everything).
func allows(s Scope, c string) bool {
	if len(s.Allow) == 0 {
		return true
	}
	_, ok := firstMatch(s.Allow, c)
	return ok
}

// allowedText tells the model what it may change.
func allowedText(s Scope) string {
	if len(s.Allow) == 0 {
		return "allowed: the whole workspace except denied and boundary paths"
	}
	return "allowed: " + strings.Join(s.Allow, ", ")
}

// ValidateScope checks every glob, the budget and the policy.
func ValidateScope(s Scope) error {
	for _, list := range [][]string{s.Allow, s.Deny, s.Boundary} {
		for _, g := range list {
			if err := ValidateGlob(g); err != nil {
				return fmt.Errorf("%w: %v", ErrBadScope, err)
			}
		}
	}
	if s.Budget < 0 {
		return fmt.Errorf("%w: budget %d must be 0 (none) or positive", ErrBadScope, s.Budget)
	}
	if s.Policy != "" && s.Policy != PolicyRecord && s.Policy != PolicyRevert {
		return fmt.Errorf("%w: policy %q must be record or revert", ErrBadScope, s.Policy)
	}
	return nil
}

// ValidateGlob checks a workspace-relative doublestar glob.
func ValidateGlob(g string) error {
	switch {
	case strings.TrimSpace(g) == "":
		return errors.New("empty glob")
	case strings.HasPrefix(g, "/"):
		return fmt.Errorf("glob %q must be relative to the workspace root", g)
	case slices.Contains(strings.Split(g, "/"), ".."):
		return fmt.Errorf("glob %q must not contain '..'", g)
	case !doublestar.ValidatePattern(g):
		return fmt.Errorf("glob %q is not a valid pattern", g)
	}
	return nil
}

// firstMatch returns the first glob of list that matches the clean path p.
func firstMatch(list []string, p string) (string, bool) {
	for _, g := range list {
		if doublestar.MatchUnvalidated(g, p) {
			return g, true
		}
	}
	return "", false
}

// union returns a's items followed by b's not in a.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
