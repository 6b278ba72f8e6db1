package governance

import (
	"fmt"
	"strings"

	"exo/harness"
	"exo/store"
)

// Bootstrap is governance's part of a session's first prompt (or a forked session's next one).
type Bootstrap struct {
	Text string
	// Deliver must be appended by the executor once Text is in a prompt sent to the model, so
	// each handoff is delivered exactly once.
	Deliver []store.Record
}

// BuildBootstrap renders the rules, the scope, the live siblings and any undelivered handoffs
// for a session. c is the sealed constitution from VerifyLock (nil when the project has none).
func BuildBootstrap(h *harness.Harness, sessionID string, c *Constitution, actor string) (*Bootstrap, error) {
	st, err := Load(h, sessionID)
	if err != nil {
		return nil, err
	}
	sibs, err := Siblings(h, st.Session)
	if err != nil {
		return nil, err
	}
	pending := st.Pending()
	text := joinSections(c.RulesText(), ScopeText(st.Scope), SiblingText(st.Scope, sibs), HandoffText(pending))
	return &Bootstrap{Text: text, Deliver: DeliveryRecords(actor, pending)}, nil
}

// ScopeText tells the model its scope.
func ScopeText(s Scope) string {
	var b strings.Builder
	if len(s.Allow) == 0 {
		b.WriteString("Your scope: the whole workspace")
	} else {
		b.WriteString("Your scope: only " + strings.Join(s.Allow, ", "))
	}
	if len(s.Deny) > 0 {
		b.WriteString(", except " + strings.Join(s.Deny, ", "))
	}
	b.WriteString(".\nNever change " + strings.Join(s.Boundaries(), ", ") + ".\n")
	if s.Budget > 0 {
		fmt.Fprintf(&b, "Change at most %d files.\n", s.Budget)
	}
	action := "recorded as violations"
	if s.EffectivePolicy() == PolicyRevert {
		action = "reverted and recorded as violations"
	}
	fmt.Fprintf(&b, "The file tools refuse paths outside this scope; shell changes outside it are %s.\n", action)
	return b.String()
}
