package governance

import (
	"context"
	"encoding/json"
	"errors"
	"exo/harness/api"
	"fmt"
	"strings"

	"exo/harness"
	"exo/store"
)

// HandoffRecord is the payload governance writes as handoff.recorded. It is a JSON superset of
// harness.HandoffRecorded (from, to, note), so the harness decodes and summarises it as usual,
// and it carries what the receiver needs without reading the sender's log.
type HandoffRecord struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Note      string `json:"note,omitempty"` // next steps
	FromName  string `json:"from_name,omitempty"`
	ToName    string `json:"to_name,omitempty"`
	Summary   string `json:"summary,omitempty"`
	Branch    string `json:"branch,omitempty"`
	AtSeq     uint64 `json:"at_seq,omitempty"`
	Workspace string `json:"workspace,omitempty"`
	// Position is where this record sits in the receiver's history ("branch@seq"); not stored.
	Position string `json:"-"`
}

// ErrSameSession means a handoff names one session as both ends.
var ErrSameSession = api.ErrSameSession

// applyHandoff keeps handoffs addressed to this session.
func (s *State) applyHandoff(e harness.Event) {
	var r HandoffRecord
	if json.Unmarshal(e.Data, &r) != nil || r.To != s.Session {
		return
	}
	r.Position = origin(e)
	s.Incoming = append(s.Incoming, r)
}

// Pending returns the incoming handoffs not yet delivered to a bootstrap prompt.
func (s *State) Pending() []HandoffRecord {
	var out []HandoffRecord
	for _, r := range s.Incoming {
		if !s.Delivered[r.Position] {
			out = append(out, r)
		}
	}
	return out
}

// HandoffOptions describes a handoff from one session to another.
type HandoffOptions struct {
	From string // session reference
	To   string // session reference, or the name of a session to create
	Note string // next steps for the receiver
	// Create makes To as a new session in From's workspace, with From's scope, if no session
	// matches it.
	Create bool
	Finish FinishOptions
}

// HandoffResult reports a completed handoff.
type HandoffResult struct {
	From    *harness.Session
	To      *harness.Session
	Created bool
	Memento *Memento // nil when From had finished already
}

// Handoff finishes From (running its checks) unless it has finished already, then records
// handoff.recorded in both sessions. To's bootstrap prompt receives it once (see Bootstrap).
// The two appends are separate transactions: the harness has no cross-session one.
func Handoff(ctx context.Context, h *harness.Harness, o HandoffOptions) (*HandoffResult, error) {
	from, err := h.Session(o.From)
	if err != nil {
		return nil, err
	}
	res := &HandoffResult{From: from}
	if res.To, res.Created, err = handoffTarget(h, from, o); err != nil {
		return nil, err
	}
	st, err := Load(h, from.ID)
	if err != nil {
		return nil, err
	}
	summary := st.Summary
	if !st.Finished {
		if res.Memento, err = Finish(ctx, h, from.ID, o.Finish); err != nil {
			return nil, fmt.Errorf("handoff %s: %w", from.Name, err)
		}
		summary = res.Memento.Summary
	}
	if err := recordHandoff(h, from, res.To, summary, o.Note); err != nil {
		return nil, err
	}
	return res, nil
}

// handoffTarget resolves (or creates) the receiving session.
func handoffTarget(h *harness.Harness, from *harness.Session, o HandoffOptions) (*harness.Session, bool, error) {
	to, err := h.Session(o.To)
	if err == nil {
		if to.ID == from.ID {
			return nil, false, ErrSameSession
		}
		return to, false, nil
	}
	if !errors.Is(err, harness.ErrNoSession) || !o.Create {
		return nil, false, err
	}
	scope, err := CurrentScope(h, from.ID)
	if err != nil {
		return nil, false, err
	}
	if scope, err = withConstitution(from.Workspace, scope); err != nil {
		return nil, false, err
	}
	var settings map[string]string
	if p := from.Settings["project"]; p != "" {
		settings = map[string]string{"project": p}
	}
	to, err = h.NewSession(harness.NewSessionOptions{Name: o.To, Agent: from.Agent, Workspace: from.Workspace,
		Settings: settings})
	if err != nil {
		return nil, false, err
	}
	if _, err := h.Append(to.ID, ScopeRecord(scope, harness.ActorHarness, "handoff")); err != nil {
		return nil, false, err
	}
	return to, true, nil
}

// withConstitution applies the workspace's sealed constitution to the scope a new receiver
// inherits, as 'exo new' would: its deny list and boundary are added, and its budget and policy
// fill in what the sender's scope leaves unset (a sender older than the constitution has none).
func withConstitution(ws string, sender Scope) (Scope, error) {
	if ws == "" {
		return sender, nil
	}
	c, err := VerifyLock(ws)
	if err != nil {
		if _, sealed, lerr := ReadLock(ws); lerr == nil {
			c = sealed // a stale lock: its rules still hold
		}
	}
	if c == nil {
		return sender, nil
	}
	s, err := NewScope(c, ScopeRequest{Allow: sender.Allow, Deny: sender.Deny, Budget: sender.Budget, Policy: sender.Policy})
	if err != nil {
		return Scope{}, fmt.Errorf("the receiver's scope: %w", err)
	}
	s.Boundary = union(s.Boundary, sender.Boundary)
	return s, nil
}

// recordHandoff appends handoff.recorded to the sender, then to the receiver.
func recordHandoff(h *harness.Harness, from, to *harness.Session, summary, note string) error {
	head, err := h.Events(from.ID, 0, 0)
	if err != nil {
		return err
	}
	r := HandoffRecord{From: from.ID, To: to.ID, Note: note, FromName: from.Name, ToName: to.Name,
		Summary: summary, Branch: from.Branch, Workspace: from.Workspace}
	if n := len(head); n > 0 {
		r.AtSeq = head[n-1].Seq
	}
	rec := harness.MustRecord(harness.TypeHandoffRecorded, harness.ActorHarness, r)
	if _, err := h.Append(from.ID, rec); err != nil {
		return fmt.Errorf("record handoff in %s: %w", from.Name, err)
	}
	if _, err := h.Append(to.ID, rec); err != nil {
		return fmt.Errorf("record handoff in %s: %w", to.Name, err)
	}
	return nil
}

// HandoffText renders incoming handoffs for a bootstrap prompt; "" when there are none.
func HandoffText(hs []HandoffRecord) string {
	var b strings.Builder
	for _, r := range hs {
		fmt.Fprintf(&b, "Handoff from session %s (branch %s at event %d, workspace %s).\n",
			firstNonEmpty(r.FromName, r.From), r.Branch, r.AtSeq, r.Workspace)
		if r.Summary != "" {
			fmt.Fprintf(&b, "What was done: %s\n", r.Summary)
		}
		if r.Note != "" {
			fmt.Fprintf(&b, "Next steps: %s\n", r.Note)
		}
	}
	return b.String()
}

// DeliveryRecords returns the handoff.delivered records the executor appends once it has put
// these handoffs into a prompt, so they are delivered exactly once.
func DeliveryRecords(actor string, hs []HandoffRecord) []store.Record {
	out := make([]store.Record, 0, len(hs))
	for _, r := range hs {
		out = append(out, harness.MustRecord(TypeHandoffDelivered, actor,
			HandoffDelivered{From: r.From, Handoff: r.Position}))
	}
	return out
}
