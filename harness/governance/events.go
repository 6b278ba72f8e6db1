package governance

import (
	"fmt"
	"strings"

	"exo/harness"
)

// Event types that governance adds to the harness registry.
const (
	// TypeScopeSet sets (or narrows) a session's scope; the newest one in a history wins.
	TypeScopeSet = "scope.set"
	// TypeConflictDetected records that this session and another changed the same path.
	TypeConflictDetected = "conflict.detected"
	// TypeHandoffDelivered records that an incoming handoff was put into a bootstrap prompt.
	TypeHandoffDelivered = "handoff.delivered"
	// TypeSessionMemento carries the structured closeout of a session, before session.finished.
	TypeSessionMemento = "session.memento"
	// TypeGovernanceOverridden records that the user started work under stale governance.
	TypeGovernanceOverridden = "governance.overridden"
)

// ScopeSet is the payload of scope.set.
type ScopeSet struct {
	Scope  Scope  `json:"scope"`
	Reason string `json:"reason,omitempty"` // new, fork, subagent, user, constitution
}

// HandoffDelivered is the payload of handoff.delivered.
type HandoffDelivered struct {
	From string `json:"from"`
	// Handoff is the position of the delivered handoff.recorded event: "branch@seq".
	Handoff string `json:"handoff"`
}

// GovernanceOverridden is the payload of governance.overridden.
type GovernanceOverridden struct {
	Reason string `json:"reason"`
}

func init() {
	harness.RegisterType(TypeScopeSet, typed(harness.FamilyPolicy, func(p *ScopeSet) string {
		return "scope " + p.Scope.String()
	}))
	harness.RegisterType(TypeConflictDetected, typed(harness.FamilyPolicy, func(p *ConflictDetected) string {
		return fmt.Sprintf("conflict with %s on %s", firstNonEmpty(p.WithName, p.With), p.Path)
	}))
	harness.RegisterType(TypeHandoffDelivered, typed(harness.FamilySession, func(p *HandoffDelivered) string {
		return "handoff from " + p.From + " delivered"
	}))
	harness.RegisterType(TypeSessionMemento, typed(harness.FamilySession, func(p *Memento) string {
		return fmt.Sprintf("memento: %d files, %d turns, drift %.2f, checks %s", len(p.Files), p.Turns, p.Drift, checksLine(p))
	}))
	harness.RegisterType(TypeGovernanceOverridden, typed(harness.FamilyPolicy, func(p *GovernanceOverridden) string {
		return "governance overridden: " + oneLine(p.Reason)
	}))
}

// typed builds a harness.TypeInfo for payload type T.
func typed[T any](family string, sum func(*T) string) harness.TypeInfo {
	return harness.TypeInfo{
		Family:  family,
		New:     func() any { return new(T) },
		Summary: func(p any) string { return sum(p.(*T)) },
	}
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// oneLine squeezes text onto one line of at most 200 runes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		return string(r[:199]) + "…"
	}
	return s
}
