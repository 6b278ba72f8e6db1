package governance

import (
	"fmt"

	"exo/harness"
	"exo/store"
)

// ScopeRecord returns the scope.set record for a scope (for exo new, forks and subagents).
func ScopeRecord(s Scope, actor, reason string) store.Record {
	return harness.MustRecord(TypeScopeSet, actor, ScopeSet{Scope: s, Reason: reason})
}

// SetScope validates and appends a new scope for a session. The user may set any scope; any
// other actor (an executor, a subagent) may only narrow the current one (see Narrow).
func SetScope(h *harness.Harness, sessionID string, next Scope, actor, reason string) (Scope, error) {
	if err := ValidateScope(next); err != nil {
		return Scope{}, err
	}
	st, err := Load(h, sessionID)
	if err != nil {
		return Scope{}, err
	}
	if actor != harness.ActorUser && st.Scoped {
		if next, err = Narrow(st.Scope, next); err != nil {
			return Scope{}, fmt.Errorf("set scope of %s: %w", sessionID, err)
		}
	}
	next.Boundary = union(DefaultBoundary(), next.Boundary)
	if _, err := h.Append(sessionID, ScopeRecord(next, actor, reason)); err != nil {
		return Scope{}, err
	}
	return next, nil
}
