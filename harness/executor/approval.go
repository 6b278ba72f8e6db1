package executor

import (
	"context"
	"time"

	"exo/harness"
	"exo/harness/provider"
)

// Approval decisions recorded in approval.resolved.
const (
	DecisionOnce   = "once"
	DecisionAlways = "always"
	DecisionDeny   = "deny"
)

// approve applies the tool's approval policy: auto runs, deny refuses, ask appends
// approval.requested and waits for approval.resolved (or fails closed when headless).
// A PreToolUse hook's allow skips the asking (never a deny policy); its ask asks even when the
// policy is auto.
func (t *turn) approve(ctx context.Context, c provider.ToolCall, summary, hook string) (bool, string, error) {
	return t.approveAs(ctx, c, summary, hook, c.Name)
}

// approveAs is approve with the policy of tool policy (an agent's own tool answers to the policy
// of exo's tool that does the same, e.g. Claude's Write to write_file).
func (t *turn) approveAs(ctx context.Context, c provider.ToolCall, summary, hook, policy string) (bool, string, error) {
	switch p := t.x.policy(t.s.ID, policy); {
	case p == "deny":
		return false, "the tool " + c.Name + " is denied by this session's policy", nil
	case hook == "allow":
		return true, "", nil
	case p == "ask" || hook == "ask":
	default:
		return true, "", nil
	}
	view, err := t.x.ViewOf(t.s.Branch, t.model.ModelID)
	if err != nil {
		return false, "", err
	}
	if view.Always[c.Name] {
		return true, "", nil
	}
	ch, stop := t.x.h.Subscribe(64)
	defer stop()
	if err := t.append(harness.TypeApprovalRequested, harness.ApprovalRequested{CallID: c.ID, Tool: c.Name, Args: validJSON(c.Arguments), Summary: summary}); err != nil {
		return false, "", err
	}
	if t.to.AutoApprove {
		return true, "", t.resolve(c.ID, DecisionOnce, harness.ActorUser)
	}
	if t.to.Headless {
		return false, "approval needed for " + c.Name + " but nobody can answer (run with --yes to approve)", t.resolve(c.ID, DecisionDeny, harness.ActorHarness)
	}
	return t.waitApproval(ctx, ch, c)
}

// resolve records an approval decision.
func (t *turn) resolve(callID, decision, actor string) error {
	_, err := t.x.h.AppendOn(t.s.ID, t.s.Branch, harness.MustRecord(harness.TypeApprovalResolved, actor,
		harness.ApprovalResolved{CallID: callID, Decision: decision}))
	return err
}

// waitApproval waits for the user's approval.resolved for a call.
func (t *turn) waitApproval(ctx context.Context, ch <-chan harness.Notice, c provider.ToolCall) (bool, string, error) {
	var timeout <-chan time.Time
	if t.x.opts.ApprovalTimeout > 0 {
		timeout = time.After(t.x.opts.ApprovalTimeout)
	}
	for {
		select {
		case <-ctx.Done():
			return false, "not approved: the turn was cancelled", nil
		case <-timeout:
			return false, "not approved in time", t.resolve(c.ID, DecisionDeny, harness.ActorHarness)
		case n, ok := <-ch:
			if !ok {
				return false, "not approved: exo is shutting down", nil
			}
			for _, e := range n.Events {
				if e.Type != harness.TypeApprovalResolved {
					continue
				}
				p, err := harness.Decode(e)
				if r, _ := p.(*harness.ApprovalResolved); err == nil && r.CallID == c.ID {
					if r.Decision == DecisionDeny {
						return false, "the user denied this call", nil
					}
					return true, "", nil
				}
			}
		}
	}
}
