package governance

import (
	"errors"
	"fmt"

	"exo/harness"
	"exo/store"
)

// Policy violation actions for shell changes.
const (
	ActionRecorded = "recorded"
	ActionReverted = "reverted"
)

// Enforcement is what the harness does after a command's snapshot: append Violations and, under
// the revert policy, restore Revert (workspace-relative paths) from the previous snapshot.
type Enforcement struct {
	Violations []store.Record
	Revert     []string
}

// Enforce checks the paths a shell command changed against the scope. Under revert, every
// refused path (and a renamed file's old path) is listed for restoring; under record the
// violations are only recorded. Actor of the records is the harness.
func Enforce(scope Scope, changed []harness.FileChange) Enforcement {
	var out Enforcement
	action := ActionRecorded
	if scope.EffectivePolicy() == PolicyRevert {
		action = ActionReverted
	}
	for _, c := range changed {
		err := CheckPath(scope, c.Path)
		if c.From != "" && err == nil {
			err = CheckPath(scope, c.From)
		}
		if err == nil {
			continue
		}
		out.Violations = append(out.Violations, harness.MustRecord(harness.TypePolicyViolation, harness.ActorHarness,
			harness.PolicyViolation{Path: c.Path, Rule: ruleOf(err), Action: action, Detail: c.Kind + ": " + err.Error()}))
		if action == ActionReverted {
			out.Revert = appendNew(out.Revert, c.Path)
			if c.From != "" {
				out.Revert = appendNew(out.Revert, c.From)
			}
		}
	}
	return out
}

// ruleOf names the rule behind a scope error.
func ruleOf(err error) string {
	var se *ScopeError
	if errors.As(err, &se) {
		return se.Rule
	}
	return "scope"
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// EnforceSession enforces a session's current scope (folded from its log) on the paths a
// command changed; the harness calls it right after appending the command's snapshot.
func EnforceSession(h *harness.Harness, sessionID string, changed []harness.FileChange) (Enforcement, error) {
	if len(changed) == 0 {
		return Enforcement{}, nil
	}
	scope, err := CurrentScope(h, sessionID)
	if err != nil {
		return Enforcement{}, fmt.Errorf("enforce scope of %s: %w", sessionID, err)
	}
	return Enforce(scope, changed), nil
}
