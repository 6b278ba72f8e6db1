package executor

import (
	"context"
	"encoding/json"

	"exo/harness"
	"exo/harness/provider"
)

// Hooks runs the user's hooks at Claude Code's hook points of a turn. Implementations record
// each run as an event; the executor acts on the verdicts. nil runs none.
type Hooks interface {
	// PreToolUse runs before a tool call (before its approval).
	PreToolUse(ctx context.Context, c HookToolCall) PreToolVerdict
	// PostToolUse runs after a tool call, before its result is recorded; feedback (a block
	// reason or additional context) is appended to the result the model sees.
	PostToolUse(ctx context.Context, c HookToolCall, output string, isError bool) (feedback string)
	// UserPromptSubmit runs before a prompt is recorded: block refuses it; context is added to it.
	UserPromptSubmit(ctx context.Context, s *harness.Session, prompt string) (block bool, reason, context string)
	// Stop runs when the model is done; block makes it go on with reason as the next message.
	// active is true when the turn already went on because of a Stop hook.
	Stop(ctx context.Context, s *harness.Session, active bool) (block bool, reason string)
	// SessionStart runs before a session's first turn in this process (source startup for a new
	// session, resume for one with history); context joins the system prompt.
	SessionStart(ctx context.Context, s *harness.Session, source string) (context string)
	// PreCompact runs before the history is summarised (trigger manual or auto).
	PreCompact(ctx context.Context, s *harness.Session, trigger string)
}

// HookToolCall is the tool call a hook sees.
type HookToolCall struct {
	Session *harness.Session
	CallID  string
	Tool    string
	Args    json.RawMessage
}

// PreToolVerdict is what PreToolUse hooks decided: Decision allow (skip the approval), deny
// (refuse with Reason), ask (ask even when the policy is auto) or "" (no opinion); Args, when
// set, replaces the call's arguments.
type PreToolVerdict struct {
	Decision string
	Reason   string
	Args     json.RawMessage
}

// maxStopContinues bounds how often Stop hooks may make one turn go on.
const maxStopContinues = 8

// preToolHook runs PreToolUse and applies a rewrite of the arguments.
func (t *turn) preToolHook(ctx context.Context, c *provider.ToolCall) PreToolVerdict {
	if t.x.opts.Hooks == nil {
		return PreToolVerdict{}
	}
	v := t.x.opts.Hooks.PreToolUse(ctx, HookToolCall{Session: t.s, CallID: c.ID, Tool: c.Name, Args: c.Arguments})
	if len(v.Args) > 0 && json.Valid(v.Args) {
		c.Arguments = v.Args
	}
	return v
}

// postToolHook runs PostToolUse and appends its feedback to the output.
func (t *turn) postToolHook(ctx context.Context, c provider.ToolCall, out *toolOutput) {
	if t.x.opts.Hooks == nil {
		return
	}
	if fb := t.x.opts.Hooks.PostToolUse(ctx, HookToolCall{Session: t.s, CallID: c.ID, Tool: c.Name, Args: c.Arguments}, out.text, out.isError); fb != "" {
		out.text += "\n[PostToolUse hook] " + fb
	}
}

// stopHook asks the Stop hooks whether the turn may end; when one blocks, its reason is
// recorded as the next message and the turn goes on.
func (t *turn) stopHook(ctx context.Context) (bool, error) {
	if t.x.opts.Hooks == nil || t.stops >= maxStopContinues || ctx.Err() != nil {
		return false, nil
	}
	block, reason := t.x.opts.Hooks.Stop(ctx, t.s, t.stops > 0)
	if !block {
		return false, nil
	}
	t.stops++
	if reason == "" {
		reason = "a Stop hook asked to continue"
	}
	return true, t.append(harness.TypeInvocationReceived, harness.InvocationReceived{Text: reason, Source: "hook"})
}

// sessionStartHook runs SessionStart once per session in this executor and returns the context
// it added.
func (x *Executor) sessionStartHook(ctx context.Context, s *harness.Session) string {
	if x.opts.Hooks == nil {
		return ""
	}
	x.mu.Lock()
	if x.started == nil {
		x.started = map[string]string{}
	}
	got, done := x.started[s.ID]
	x.mu.Unlock()
	if done {
		return got
	}
	source := "startup"
	if st, err := x.h.BranchState(s.Branch); err == nil && st.Head > 2 {
		source = "resume"
	}
	got = x.opts.Hooks.SessionStart(ctx, s, source)
	x.mu.Lock()
	x.started[s.ID] = got
	x.mu.Unlock()
	return got
}
