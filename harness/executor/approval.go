package executor

import (
	"context"
	"time"

	"exo/harness"
	"exo/harness/config"
	"exo/harness/provider"
)

// readOnlyTools are the built-in tools that change nothing: an approval mode of ask or
// read-only lets them run (todo_write only records the agent's plan).
var readOnlyTools = map[string]bool{"read_file": true, "glob": true, "grep": true, "list_dir": true, "task_status": true, "task_output": true, "todo_write": true}

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
	ok, why, needAsk := t.x.modeVerdict(t.s.ID, c.Name, policy, hook, t.to.Approval)
	if !needAsk {
		return ok, why, nil
	}
	view, err := t.x.ViewOf(t.s.Branch, t.model.ModelID)
	if err != nil {
		return false, "", err
	}
	if view.Always[c.Name] {
		return true, "", nil
	}
	return t.x.ask(ctx, asking{s: t.s, callID: c.ID, tool: c.Name, args: validJSON(c.Arguments), summary: summary,
		actor: t.x.actor(), headless: t.to.Headless, auto: t.to.AutoApprove})
}

// modeVerdict is policyVerdict under an approval mode (config.ApprovalAsk, ApprovalReadOnly).
func (x *Executor) modeVerdict(sessionID, name, policy, hook, mode string) (ok bool, why string, needAsk bool) {
	return verdictUnder(x.policy(sessionID, policy), name, hook, mode, readOnlyTools[policy])
}

// verdictUnder is verdictOf for policy p under an approval mode: ask makes a tool that can
// change something ask, read-only refuses it (saying why).
func verdictUnder(p, name, hook, mode string, readOnly bool) (ok bool, why string, needAsk bool) {
	q := config.ApplyApproval(p, mode, readOnly)
	if q == "deny" && p != "deny" {
		return false, "the tool " + name + " is refused: the approval mode is read-only (it can change things)", false
	}
	return verdictOf(q, name, hook)
}

// verdictOf is policyVerdict for a known policy p.
func verdictOf(p, name, hook string) (ok bool, why string, needAsk bool) {
	switch {
	case p == "deny":
		return false, "the tool " + name + " is denied by this session's policy", false
	case hook == "allow":
		return true, "", false
	case p == "ask" || hook == "ask":
		return false, "", true
	default:
		return true, "", false
	}
}

// asking is one approval to ask the user for.
type asking struct {
	s                     *harness.Session
	callID, tool, summary string
	args                  []byte
	actor                 string
	headless, auto        bool
}

// ask appends approval.requested and waits for the user's approval.resolved; headless, it is
// refused at once (recorded as the harness's deny), and with auto it is approved at once.
func (x *Executor) ask(ctx context.Context, a asking) (bool, string, error) {
	ch, stop := x.h.Subscribe(64)
	defer stop()
	if _, err := x.h.AppendOn(a.s.ID, a.s.Branch, harness.MustRecord(harness.TypeApprovalRequested, a.actor,
		harness.ApprovalRequested{CallID: a.callID, Tool: a.tool, Args: a.args, Summary: a.summary})); err != nil {
		return false, "", err
	}
	if a.auto {
		return true, "", x.resolve(a.s, a.callID, DecisionOnce, harness.ActorUser)
	}
	if a.headless {
		return false, "approval needed for " + a.tool + " but nobody can answer (run with --yes to approve)", x.resolve(a.s, a.callID, DecisionDeny, harness.ActorHarness)
	}
	return x.waitApproval(ctx, ch, a.s, a.callID)
}

// resolve records an approval decision.
func (x *Executor) resolve(s *harness.Session, callID, decision, actor string) error {
	_, err := x.h.AppendOn(s.ID, s.Branch, harness.MustRecord(harness.TypeApprovalResolved, actor,
		harness.ApprovalResolved{CallID: callID, Decision: decision}))
	return err
}

// waitApproval waits for the user's approval.resolved for a call.
func (x *Executor) waitApproval(ctx context.Context, ch <-chan harness.Notice, s *harness.Session, callID string) (bool, string, error) {
	var timeout <-chan time.Time
	if x.opts.ApprovalTimeout > 0 {
		timeout = time.After(x.opts.ApprovalTimeout)
	}
	for {
		select {
		case <-ctx.Done():
			return false, "not approved: the turn was cancelled", nil
		case <-timeout:
			return false, "not approved in time", x.resolve(s, callID, DecisionDeny, harness.ActorHarness)
		case n, ok := <-ch:
			if !ok {
				return false, "not approved: exo is shutting down", nil
			}
			if d, found := resolvedIn(n, callID); found {
				if d == DecisionDeny {
					return false, "the user denied this call", nil
				}
				return true, "", nil
			}
		}
	}
}

// resolvedIn finds the answer to callID among a notice's events.
func resolvedIn(n harness.Notice, callID string) (decision string, found bool) {
	for _, e := range n.Events {
		if e.Type != harness.TypeApprovalResolved {
			continue
		}
		p, err := harness.Decode(e)
		if r, _ := p.(*harness.ApprovalResolved); err == nil && r.CallID == callID {
			return r.Decision, true
		}
	}
	return "", false
}
