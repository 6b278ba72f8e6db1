package governance

import (
	"strings"

	"exo/harness"
	"exo/store"
)

// CheckWriteHook adapts Check to the executor's CheckWrite option: it folds the session's
// current scope (incrementally, through a Tracker) and refuses the workspace-relative path when
// it is out of scope or a boundary path. The error text is written for the model.
func CheckWriteHook(h *harness.Harness) func(sessionID, relPath string) error {
	return NewTracker(h).CheckWrite
}

// CheckWrite refuses a workspace-relative path outside the session's current scope.
func (t *Tracker) CheckWrite(sessionID, relPath string) error {
	st, err := t.State(sessionID)
	if err != nil {
		return err
	}
	return CheckPath(st.Scope, relPath)
}

// SystemExtraHook adapts SystemText to the executor's SystemExtra option, reading the sealed
// constitution of the session's workspace from its lock (VerifyLock ran at session start).
// Failures leave the extra text empty rather than failing the turn.
func SystemExtraHook(h *harness.Harness) func(sessionID string) string {
	t := NewTracker(h)
	return func(sessionID string) string {
		s, err := h.Session(sessionID)
		if err != nil {
			return ""
		}
		var c *Constitution
		if _, sealed, err := ReadLock(s.Workspace); err == nil {
			c = sealed
		}
		text, err := t.SystemText(sessionID, c)
		if err != nil {
			return ""
		}
		return text
	}
}

// SystemText renders the stable governance part of a system prompt: the constitution's rules,
// the session's scope and its live siblings. Handoffs are not included: they are delivered once
// (see DeliverHandoffs and BuildBootstrap).
func SystemText(h *harness.Harness, sessionID string, c *Constitution) (string, error) {
	return NewTracker(h).SystemText(sessionID, c)
}

// SystemText is the package-level SystemText through the tracker.
func (t *Tracker) SystemText(sessionID string, c *Constitution) (string, error) {
	st, err := t.State(sessionID)
	if err != nil {
		return "", err
	}
	sibs, err := t.Siblings(st.Session)
	if err != nil {
		return "", err
	}
	return joinSections(c.RulesText(), ScopeText(st.Scope), SiblingText(st.Scope, sibs)), nil
}

// ApprovalMap converts the constitution's approvals to the executor's Approvals option. The
// executor treats unlisted tools as auto, so the "*" default is expanded onto each of tools that
// has no entry of its own (and kept under "*" for executors that understand it).
func (c *Constitution) ApprovalMap(tools ...string) map[string]string {
	if c == nil {
		return nil
	}
	out := make(map[string]string, len(c.Approvals)+len(tools))
	for tool, a := range c.Approvals {
		out[tool] = string(a)
	}
	if def, ok := c.Approvals["*"]; ok {
		for _, t := range tools {
			if _, own := out[t]; !own {
				out[t] = string(def)
			}
		}
	}
	return out
}

// DeliverHandoffs puts a session's undelivered handoffs into its conversation: for each, an
// invocation.received (source "handoff") with HandoffText and a handoff.delivered, in one
// transaction on the session's current branch. Called before the session's next prompt, it makes
// each handoff reach the model exactly once and stay in the conversation afterwards.
func DeliverHandoffs(h *harness.Harness, sessionID, actor string) ([]HandoffRecord, error) {
	s, err := h.Session(sessionID)
	if err != nil {
		return nil, err
	}
	st, err := LoadBranch(h, s.ID, s.Branch)
	if err != nil {
		return nil, err
	}
	pending := st.Pending()
	if len(pending) == 0 {
		return nil, nil
	}
	out := append([]store.Record{harness.MustRecord(harness.TypeInvocationReceived, actor,
		harness.InvocationReceived{Text: HandoffText(pending), Source: "handoff"})},
		DeliveryRecords(actor, pending)...)
	if _, err := h.AppendOn(s.ID, s.Branch, out...); err != nil {
		return nil, err
	}
	return pending, nil
}

// joinSections joins non-empty prompt sections with blank lines.
func joinSections(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, strings.TrimRight(p, "\n"))
		}
	}
	return strings.Join(kept, "\n\n")
}
