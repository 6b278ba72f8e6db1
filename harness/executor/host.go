package executor

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"exo/harness"
	"exo/harness/provider"
	"exo/sandbox"
)

// This file is the part of the executor that external executors (agents such as Claude Code
// driven by exo, in harness/extexec) use so that their tool calls get exactly the treatment of
// this executor's own: the same tools, approvals, scope, secret denial, redaction, artifacts and
// snapshots, recorded with the external executor's actor (the Executor's Name).

// Options returns the options the executor was built with.
func (x *Executor) Options() Options { return x.opts }

// HostTools lists exo's tools an external agent is offered in a session: the built-in tools and
// the tool sources' (MCP servers, skills), minus those the policy denies. Subagent tools stay
// with exo's own executor.
func (x *Executor) HostTools(ctx context.Context, sessionID string) []provider.Tool {
	var out []provider.Tool
	for _, t := range builtinTools() {
		if x.policy(sessionID, t.spec.Name) != "deny" {
			out = append(out, t.spec)
		}
	}
	for _, src := range x.opts.ToolSources {
		for _, t := range src.Tools(ctx, sessionID) {
			if _, builtin := x.tools[t.Name]; !builtin && x.policy(sessionID, t.Name) != "deny" {
				out = append(out, t)
			}
		}
	}
	return out
}

// hostTurn is a turn context for one call of an external executor: no provider, only what
// tools and approvals need.
func (x *Executor) hostTurn(sessionID string) (*turn, error) {
	s, err := x.h.Session(sessionID)
	if err != nil {
		return nil, err
	}
	m, err := x.h.Model(s.Settings["model"])
	if err != nil {
		return nil, err
	}
	return &turn{x: x, s: s, model: m, res: Result{SessionID: s.ID}, to: TurnOptions{}.merge(x.opts)}, nil
}

// RunHostTool runs one tool call an external agent asked exo to run, as this executor's turn
// runs its own: tool.started, the approval policy, the tool in the session's sandbox,
// tool.completed (redacted; big output becomes an artifact) and a workspace snapshot when files
// changed. A tool that is not one of HostTools gets an error result, never a Go error. The
// call's events are durable when it returns, in one commit when it ends within HoldWait (the
// start held while the tool runs, committed with its result and snapshot).
func (x *Executor) RunHostTool(ctx context.Context, sessionID string, call provider.ToolCall) (harness.ToolCompleted, error) {
	t, err := x.hostTurn(sessionID)
	if err != nil {
		return harness.ToolCompleted{}, err
	}
	if isAgentTool(call.Name) {
		call.Name = "unavailable:" + call.Name // subagent tools are exo's executor's own
	}
	t.hold = true // the call's start, result and snapshot share one commit, made before it returns
	done, err := t.runToolResult(ctx, call)
	var hs *hookStopError
	if errors.As(err, &hs) {
		err = nil // the call is refused (or ran) as recorded; the agent's own turn goes on
	}
	if rerr := t.release(); rerr != nil && err == nil {
		err = fmt.Errorf("record the call of %s: %w", call.Name, rerr)
	}
	return done, err
}

// isAgentTool reports whether name is one of the subagent tools.
func isAgentTool(name string) bool {
	for _, t := range agentTools() {
		if t.spec.Name == name {
			return true
		}
	}
	return false
}

// NativeCall is a tool call an external agent runs itself (its own Bash, Write, Edit…), which
// exo approves first.
type NativeCall struct {
	// Call is the agent's call as it named it.
	Call provider.ToolCall
	// Policy is exo's tool whose approval policy applies (bash, write_file, edit_file, read_file…).
	Policy string
	// Writes are the paths the call will write (absolute or workspace-relative), checked against
	// the workspace and the session's scope.
	Writes []string
	// Reads are the paths the call will read, checked against exo's sealed secrets.
	Reads []string
	// Command is the shell command the call runs, checked against exo's sealed secrets.
	Command string
	// Ran is set for a call the agent already ran without asking (a read it allows itself):
	// tool.started is recorded, nothing is checked.
	Ran bool
}

// StartNative records tool.started for a call an external agent runs itself (held, see
// callEvent: committed with what follows, at the latest after HoldWait) and decides whether
// it may run: writes outside the workspace or the scope are refused (policy.violation), reads of
// exo's home and commands reaching sealed secrets are refused (secret.denied), then the approval
// policy of Policy applies (approval.requested and approval.resolved when it asks). A refusal
// returns ok false and the reason the agent is told; the caller then records the result with
// FinishNative.
func (x *Executor) StartNative(ctx context.Context, sessionID string, n NativeCall) (ok bool, reason string, err error) {
	t, err := x.hostTurn(sessionID)
	if err != nil {
		return false, "", err
	}
	summary := summarize(n.Call)
	t.hold = true // committed with what follows: the approval, the refusal, or FinishNative's result
	if err := t.callEvent(harness.TypeToolStarted, harness.ToolStarted{CallID: n.Call.ID, Tool: n.Call.Name, Args: validJSON(n.Call.Arguments), Summary: summary}); err != nil {
		return false, "", err
	}
	if x.opts.OnTool != nil {
		x.opts.OnTool(sessionID, true, n.Call.Name, summary)
	}
	if n.Ran {
		return true, "", nil
	}
	if why := t.nativeRefusal(n); why != "" {
		return false, why, nil
	}
	return t.approveAs(ctx, n.Call, summary, "", n.Policy)
}

// nativeRefusal checks a native call's paths and command against the workspace, the scope and
// exo's sealed secrets, recording what it refuses.
func (t *turn) nativeRefusal(n NativeCall) string {
	tc := toolCtx{x: t.x, session: t.s.ID, branch: t.s.Branch, callID: n.Call.ID, ws: t.s.Workspace}
	for _, p := range n.Reads {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(t.s.Workspace, abs)
		}
		if why := t.x.h.SecretPathDeniedIn(t.s.Workspace, abs); why != "" {
			return t.x.denySecret(tc, n.Call.Name, why).text
		}
	}
	if n.Command != "" {
		if name, why := t.x.h.SecretCommandDenied(n.Command); name != "" {
			_, _ = t.x.h.AppendOn(t.s.ID, t.s.Branch, harness.MustRecord(harness.TypeSecretDenied, harness.ActorHarness,
				harness.SecretDenied{Name: name, Tool: n.Call.Name, Reason: why}))
			return "denied: secret " + name + ": " + why
		}
	}
	for _, p := range n.Writes {
		if why := t.writeRefusal(tc, p); why != "" {
			_, _ = t.x.h.AppendOn(t.s.ID, t.s.Branch, harness.MustRecord(harness.TypePolicyViolation, harness.ActorHarness,
				harness.PolicyViolation{Path: p, Rule: "scope", Action: "refused", Detail: why}))
			return "refused by exo: " + why
		}
	}
	return ""
}

// writeRefusal says why a native write to p is not allowed, or "".
func (t *turn) writeRefusal(tc toolCtx, p string) string {
	rel := p
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(t.s.Workspace, p)
		if err != nil || r == ".." || strings.HasPrefix(r, "../") {
			return fmt.Sprintf("%s is outside the workspace %s", p, t.s.Workspace)
		}
		rel = r
	}
	abs, err := sandbox.ResolveInWorkspace(t.s.Workspace, rel)
	if err != nil {
		return fmt.Sprintf("%s: %v (writes must stay inside the workspace %s)", p, err, t.s.Workspace)
	}
	if err := tc.checkWrite(abs); err != nil {
		return err.Error()
	}
	return ""
}

// FinishNative records the result of a call an external agent ran itself (or was refused) and
// snapshots the workspace when the call may have changed files, so rewind restores them: the
// call's start (if still held), result and snapshot in one commit, durable when it returns.
func (x *Executor) FinishNative(sessionID string, done harness.ToolCompleted, mayChange bool) error {
	t, err := x.hostTurn(sessionID)
	if err != nil {
		return err
	}
	done.Output, done.Diff = x.h.Redact(done.Output), x.h.Redact(done.Diff)
	t.hold = true // the start, the result and the snapshot share one commit, made before it returns
	if err := t.callEvent(harness.TypeToolCompleted, done); err != nil {
		return err
	}
	if x.opts.OnTool != nil {
		x.opts.OnTool(sessionID, false, done.Tool, firstLine(done.Output))
	}
	if mayChange {
		if _, serr := x.h.SnapshotWorkspace(sessionID, t.s.Branch, done.CallID); serr != nil {
			err = fmt.Errorf("snapshot after %s: %w", done.Tool, serr)
		}
	}
	if rerr := t.release(); rerr != nil && err == nil {
		err = fmt.Errorf("record the result of %s: %w", done.Tool, rerr)
	}
	return err
}

// ResultText renders a recorded tool result as exo's executor shows it to its model (the exit
// code of a command, a kill, where the cut output went), so an external agent reads the same.
func ResultText(p harness.ToolCompleted) string { return resultText(&p) }

// ResultIsError reports whether a recorded tool result is a failure for the model.
func ResultIsError(p harness.ToolCompleted) bool { return isError(&p) }

// CloseOpenCalls records tool calls of the session's history that started but never completed
// (exo stopped mid-call) as interrupted, as exo's executor does at the start of a turn.
func (x *Executor) CloseOpenCalls(sessionID string) error {
	t, err := x.hostTurn(sessionID)
	if err != nil {
		return err
	}
	return t.closeInterrupted()
}

// PreparePrompt does for an external executor what Prompt does before recording a prompt: a
// custom command (/name args) is expanded, and the UserPromptSubmit hooks run. blocked is the
// hooks' reason when they refuse the prompt (nothing is recorded then).
func (x *Executor) PreparePrompt(ctx context.Context, sessionID, text, source string) (prompt, src, blocked string, err error) {
	text, source, _, err = x.expand(sessionID, text, source)
	if err != nil || x.opts.Hooks == nil {
		return text, source, "", err
	}
	s, err := x.h.Session(sessionID)
	if err != nil {
		return text, source, "", err
	}
	block, reason, extra := x.opts.Hooks.UserPromptSubmit(ctx, s, text)
	if block {
		return text, source, "the prompt was blocked by a UserPromptSubmit hook: " + reason, nil
	}
	if extra != "" {
		text += "\n\n[context from a UserPromptSubmit hook]\n" + extra
	}
	return text, source, "", nil
}

// StopHook asks the Stop hooks whether an external agent's finished turn should go on (at most
// a few times per turn, counted by continued); it returns the message to go on with, already
// recorded as invocation.received.
func (x *Executor) StopHook(ctx context.Context, sessionID string, continued int) (string, bool, error) {
	if x.opts.Hooks == nil || continued >= maxStopContinues || ctx.Err() != nil {
		return "", false, nil
	}
	s, err := x.h.Session(sessionID)
	if err != nil {
		return "", false, err
	}
	block, reason := x.opts.Hooks.Stop(ctx, s, continued > 0)
	if !block {
		return "", false, nil
	}
	if reason == "" {
		reason = "a Stop hook asked to continue"
	}
	_, err = x.h.AppendOn(s.ID, s.Branch, harness.MustRecord(harness.TypeInvocationReceived, x.actor(),
		harness.InvocationReceived{Text: reason, Source: "hook"}))
	return reason, err == nil, err
}

// SessionStartContext runs the SessionStart hooks once per session for this executor and
// returns the context they add (an external agent gets it with its system prompt).
func (x *Executor) SessionStartContext(ctx context.Context, sessionID string) string {
	s, err := x.h.Session(sessionID)
	if err != nil {
		return ""
	}
	text, _ := x.sessionStartHook(ctx, s) // an external agent's turn is not stopped by it
	return text
}
