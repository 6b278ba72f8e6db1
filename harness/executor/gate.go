package executor

import (
	"context"
	"encoding/json"

	"exo/harness"
)

// GateRequest is an action that is not a model's tool call but answers to the same rules as
// one: a command another agent runs in a session's sandbox through exo mcp serve.
type GateRequest struct {
	// Session is the session the action runs in.
	Session *harness.Session
	// CallID names the action in the approval events.
	CallID string
	// Tool is the tool whose hooks and approval policy apply (bash for a command).
	Tool string
	// Args are the tool's arguments, as a model would give them.
	Args json.RawMessage
	// Summary is the one-line description shown in the approval.
	Summary string
	// Default is the policy (auto, ask, deny) when the session's own rules do not name Tool
	// ("": the tool's default, as for a model's call).
	Default string
	// Headless means nobody can answer an approval: a call that must ask is refused.
	Headless bool
	// Approval is the session's approval mode (auto, ask, read-only).
	Approval string
}

// GateResult is what the rules decided: Allowed, else Reason; Args are the arguments to run
// with (a PreToolUse hook may have rewritten them).
type GateResult struct {
	Allowed bool
	Reason  string
	Args    json.RawMessage
}

// Gate applies to an action what a turn applies to a tool call: the PreToolUse hooks, then the
// session's approval policy for the tool (deny refuses; ask appends approval.requested and
// waits for the user's answer in the app, or refuses at once, recorded as the harness's deny,
// when Headless). An "always" answered earlier in the session counts. A caller that gives up
// while the approval waits gets it recorded as denied, so no question is left open.
func (x *Executor) Gate(ctx context.Context, g GateRequest) (GateResult, error) {
	out := GateResult{Args: g.Args}
	var hook PreToolVerdict
	if x.opts.Hooks != nil {
		hook = x.opts.Hooks.PreToolUse(ctx, HookToolCall{Session: g.Session, CallID: g.CallID, Tool: g.Tool, Args: g.Args})
		if len(hook.Args) > 0 && json.Valid(hook.Args) {
			out.Args = hook.Args
		}
	}
	if hook.Decision == "deny" {
		out.Reason = "blocked by a PreToolUse hook: " + hook.Reason
		return out, nil
	}
	p := x.policy(g.Session.ID, g.Tool)
	if _, named := x.sessionPolicy(g.Session.ID, g.Tool); !named && g.Default != "" {
		p = g.Default
	}
	ok, why, needAsk := verdictUnder(p, g.Tool, hook.Decision, g.Approval, readOnlyTools[g.Tool])
	if !needAsk {
		out.Allowed, out.Reason = ok, why
		return out, nil
	}
	always, err := x.alwaysApproved(g.Session.Branch, g.Tool)
	if err != nil || always {
		out.Allowed = always
		return out, err
	}
	out.Allowed, out.Reason, err = x.ask(ctx, asking{s: g.Session, callID: g.CallID, tool: g.Tool, args: validJSON(out.Args),
		summary: g.Summary, actor: harness.ActorHarness, headless: g.Headless})
	if ctx.Err() != nil && !out.Allowed && err == nil {
		out.Reason = "not approved: the caller stopped waiting"
		err = x.resolve(g.Session, g.CallID, DecisionDeny, harness.ActorHarness)
	}
	return out, err
}

// alwaysApproved reports whether the user answered "always" to an approval of tool on the
// branch.
func (x *Executor) alwaysApproved(branch, tool string) (bool, error) {
	evs, err := x.h.BranchEvents(branch, 1, 0)
	if err != nil {
		return false, err
	}
	asked := map[string]string{}
	for _, e := range evs {
		switch e.Type {
		case harness.TypeApprovalRequested, harness.TypeApprovalResolved:
		default:
			continue
		}
		p, err := harness.Decode(e)
		if err != nil {
			continue
		}
		switch p := p.(type) {
		case *harness.ApprovalRequested:
			asked[p.CallID] = p.Tool
		case *harness.ApprovalResolved:
			if p.Decision == DecisionAlways && asked[p.CallID] == tool {
				return true, nil
			}
		}
	}
	return false, nil
}
