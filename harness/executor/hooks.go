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
	// reason or additional context) is appended to the result the model sees; stop ends the
	// turn after the call.
	PostToolUse(ctx context.Context, c HookToolCall, output string, isError bool) (feedback string, stop HookStop)
	// UserPromptSubmit runs before a prompt is recorded: block refuses it; context is added to it.
	UserPromptSubmit(ctx context.Context, s *harness.Session, prompt string) (block bool, reason, context string)
	// Stop runs when the model is done; block makes it go on with reason as the next message
	// (a hook's continue:false ends the turn all the same). active is true when the turn
	// already went on because of a Stop hook.
	Stop(ctx context.Context, s *harness.Session, active bool) (block bool, reason string)
	// SessionStart runs before a session's first turn in this process (source startup for a new
	// session, resume for one with history, compact after its history was summarised); context
	// joins the system prompt; stop ends the turn before the model is called.
	SessionStart(ctx context.Context, s *harness.Session, source string) (context string, stop HookStop)
	// PreCompact runs before the history is summarised (trigger manual or auto); stop leaves
	// the history as it is and ends the turn.
	PreCompact(ctx context.Context, s *harness.Session, trigger string) HookStop
}

// HookStop is a hook's continue:false, as Claude Code defines it: the agent stops after the
// hook (it takes precedence over any decision), and Reason (the hook's stopReason) is shown to
// the user, not to the model.
type HookStop struct {
	Stop   bool
	Reason string
	// Event is the hook event that stopped the agent.
	Event string
}

// forModel is how a stop is worded for the model: Claude Code does not show it the stopReason.
func (h HookStop) forModel() string {
	return "a " + h.Event + " hook of the user's stopped the turn"
}

// message is how a stop is worded for the user.
func (h HookStop) message() string {
	m := "stopped by a " + h.Event + " hook"
	if h.Reason != "" {
		m += ": " + h.Reason
	}
	return m
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
// set, replaces the call's arguments; Stop (continue:false) ends the turn without the call.
type PreToolVerdict struct {
	Decision string
	Reason   string
	Args     json.RawMessage
	Stop     HookStop
}

// stopByHook is the StopReason of a turn a hook's continue:false ended.
const stopByHook = "hook"

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

// postToolHook runs PostToolUse and appends its feedback to the output; a hook's stop is
// returned for the turn to end after the call is recorded.
func (t *turn) postToolHook(ctx context.Context, c provider.ToolCall, out *toolOutput) HookStop {
	if t.x.opts.Hooks == nil {
		return HookStop{}
	}
	fb, stop := t.x.opts.Hooks.PostToolUse(ctx, HookToolCall{Session: t.s, CallID: c.ID, Tool: c.Name, Args: c.Arguments}, out.text, out.isError)
	if fb != "" {
		out.text += "\n[PostToolUse hook] " + fb
	}
	return stop
}

// hookStopped ends the turn because a hook said continue:false; the user sees its stopReason in
// turn.cancelled, the model only that a hook stopped the turn.
func (t *turn) hookStopped(h HookStop) error {
	t.res.Cancelled = true
	t.res.StopReason = stopByHook
	return t.append(harness.TypeTurnCancelled, harness.TurnCancelled{Reason: h.message(), Hook: h.Event})
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

// sessionStartHook runs SessionStart once per session in this executor (again, with source
// compact, after its history was summarised) and returns the context it added. When a hook
// stops the turn, nothing is kept: the hooks run again before the next turn.
func (x *Executor) sessionStartHook(ctx context.Context, s *harness.Session) (string, HookStop) {
	if x.opts.Hooks == nil {
		return "", HookStop{}
	}
	x.mu.Lock()
	if x.started == nil {
		x.started = map[string]sessionStarted{}
	}
	got, done := x.started[s.ID]
	x.mu.Unlock()
	if done && got.source == "" {
		return got.context, HookStop{}
	}
	source := got.source
	if source == "" {
		source = "startup"
		if st, err := x.h.BranchState(s.Branch); err == nil && st.Head > 2 {
			source = "resume"
		}
	}
	text, stop := x.opts.Hooks.SessionStart(ctx, s, source)
	if stop.Stop {
		return "", stop
	}
	x.mu.Lock()
	x.started[s.ID] = sessionStarted{context: text}
	x.mu.Unlock()
	return text, stop
}

// sessionStarted is what SessionStart hooks gave a session; source, when set, asks for them to
// run again with that source (compact).
type sessionStarted struct {
	context, source string
}

// rerunSessionStart makes the SessionStart hooks run again before the session's next model
// call, with source (Claude Code runs them with source compact after a compaction).
func (x *Executor) rerunSessionStart(sessionID, source string) {
	if x.opts.Hooks == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.started == nil {
		x.started = map[string]sessionStarted{}
	}
	x.started[sessionID] = sessionStarted{source: source}
}
