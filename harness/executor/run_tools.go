package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/provider"
	"exo/store/failpoint"
)

// toolSpecs lists the tools offered to the model, in a stable order (a cacheable prefix).
func (x *Executor) toolSpecs() []provider.Tool {
	out := make([]provider.Tool, 0, len(x.order))
	for _, t := range x.order {
		if x.opts.Approvals[t.spec.Name] != "deny" {
			out = append(out, t.spec)
		}
	}
	return out
}

// runTools runs a model answer's tool calls in order, recording each start and result. A
// hook's continue:false ends the turn: the calls after it are recorded as not run.
func (t *turn) runTools(ctx context.Context, calls []provider.ToolCall) error {
	for i, c := range calls {
		if ctx.Err() != nil {
			return t.interruptRest(calls[i:], "cancelled by the user")
		}
		err := t.runTool(ctx, c)
		var hs *hookStopError
		if errors.As(err, &hs) {
			if err := t.notRun(calls[i+1:], hs.stop.forModel()); err != nil {
				return err
			}
			return t.hookStopped(hs.stop)
		}
		if err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return t.cancelled("cancelled by the user")
	}
	return nil
}

// interruptRest closes calls that will not run and ends the turn as cancelled.
func (t *turn) interruptRest(calls []provider.ToolCall, reason string) error {
	if err := t.notRun(calls, reason); err != nil {
		return err
	}
	return t.cancelled(reason)
}

// notRun records calls that will not run.
func (t *turn) notRun(calls []provider.ToolCall, reason string) error {
	for _, c := range calls {
		if err := t.append(harness.TypeToolCompleted, harness.ToolCompleted{CallID: c.ID, Tool: c.Name, IsError: true,
			Output: "not run: " + reason}); err != nil {
			return err
		}
	}
	return nil
}

// runTool runs one call: approval, start event, the tool, result event.
func (t *turn) runTool(ctx context.Context, c provider.ToolCall) error {
	_, err := t.runToolResult(ctx, c)
	return err
}

// runToolResult is runTool returning the recorded result.
func (t *turn) runToolResult(ctx context.Context, c provider.ToolCall) (harness.ToolCompleted, error) {
	t.res.ToolCalls++
	verdict := t.preToolHook(ctx, &c)
	summary := summarize(c)
	if err := t.callEvent(harness.TypeToolStarted, harness.ToolStarted{CallID: c.ID, Tool: c.Name, Args: validJSON(c.Arguments), Summary: summary}); err != nil {
		return harness.ToolCompleted{}, err
	}
	if verdict.Stop.Stop {
		verdict.Stop.Event = "PreToolUse"
		done := harness.ToolCompleted{CallID: c.ID, Tool: c.Name, IsError: true, Output: "not run: " + verdict.Stop.forModel()}
		if err := t.callEvent(harness.TypeToolCompleted, done); err != nil {
			return done, err
		}
		return done, &hookStopError{verdict.Stop}
	}
	if t.x.opts.OnTool != nil {
		t.x.opts.OnTool(t.s.ID, true, c.Name, summary)
	}
	start := time.Now()
	spanCtx, span := t.startToolSpan(ctx, c)
	out, err := t.execute(spanCtx, c, summary, verdict)
	if err != nil {
		endToolSpan(span, harness.ToolCompleted{IsError: true, Output: err.Error()})
		return harness.ToolCompleted{}, err
	}
	stop := t.postToolHook(ctx, c, &out)
	done := harness.ToolCompleted{CallID: c.ID, Tool: c.Name, Output: t.x.h.Redact(out.text), IsError: out.isError,
		ExitCode: out.exit, Killed: out.killed, Truncated: out.trunc, TotalBytes: out.total, Artifact: out.artifact,
		DurationMs: (time.Since(start) - out.waited).Milliseconds(), Diff: t.x.h.Redact(out.diff)}
	endToolSpan(span, done)
	if err := t.callEvent(harness.TypeToolCompleted, done); err != nil {
		return done, err
	}
	if t.x.opts.OnTool != nil {
		t.x.opts.OnTool(t.s.ID, false, c.Name, firstLine(done.Output))
	}
	if out.changed {
		if _, err := t.x.h.SnapshotWorkspace(t.s.ID, t.s.Branch, c.ID); err != nil {
			return done, fmt.Errorf("snapshot after %s: %w", c.Name, err)
		}
	}
	if !t.hold && !done.IsError { // an external agent reads its own instruction files
		if err := t.nestedInstructions(c); err != nil {
			return done, fmt.Errorf("instruction files under %s's path: %w", c.Name, err)
		}
	}
	if stop.Stop {
		stop.Event = "PostToolUse"
		return done, &hookStopError{stop}
	}
	return done, nil
}

// execute checks policy and approval, then runs the tool.
func (t *turn) execute(ctx context.Context, c provider.ToolCall, summary string, verdict PreToolVerdict) (toolOutput, error) {
	tl, ok := t.x.tools[c.Name]
	src := t.x.extSource(c.Name)
	if !ok && src == nil {
		return failed(fmt.Sprintf("unknown tool %q; the tools are: %s", c.Name, strings.Join(t.x.toolNames(), ", "))), nil
	}
	if verdict.Decision == "deny" {
		return failed("blocked by a PreToolUse hook: " + verdict.Reason), nil
	}
	asked := time.Now()
	approved, why, err := t.approve(ctx, c, summary, verdict.Decision)
	if err != nil {
		return toolOutput{}, err
	}
	waited := time.Since(asked)
	if !approved {
		out := failed(why)
		out.waited = waited
		return out, nil
	}
	tc := toolCtx{x: t.x, session: t.s.ID, branch: t.s.Branch, callID: c.ID, ws: t.s.Workspace, turn: t.to, hold: t.hold}
	failpoint.Hit("tool.run") // tests kill exo as a tool is about to run (its start perhaps still held)
	var out toolOutput
	if src != nil {
		out = runExt(ctx, src, tc, c.Name, c.Arguments)
	} else {
		out = tl.run(ctx, tc, c.Arguments)
	}
	out.waited = waited
	return out, nil
}

// toolNames lists the tool names.
func (x *Executor) toolNames() []string {
	var out []string
	for _, t := range x.order {
		out = append(out, t.spec.Name)
	}
	return out
}

// denySecret records a refused secret access and tells the model no.
func (x *Executor) denySecret(tc toolCtx, tool, reason string) toolOutput {
	name := "exo-home"
	_, _ = x.h.AppendOn(tc.session, tc.branch, harness.MustRecord(harness.TypeSecretDenied, harness.ActorHarness,
		harness.SecretDenied{Name: name, Tool: tool, Reason: reason}))
	return failed("denied: " + reason)
}

// summarize renders a call's arguments in one line for events and the UI.
func summarize(c provider.ToolCall) string {
	if api.IsTodoTool(c.Name) {
		if s, ok := api.TodoSummary(c.Arguments); ok {
			return s
		}
	}
	var m map[string]any
	if json.Unmarshal(c.Arguments, &m) != nil {
		return oneLine(string(c.Arguments), 120)
	}
	for _, k := range []string{"command", "path", "pattern", "task_id", "task", "handle"} {
		if v, ok := m[k].(string); ok && v != "" {
			return oneLine(v, 120)
		}
	}
	return oneLine(string(c.Arguments), 120)
}

// validJSON returns raw if it is valid JSON, else the raw text as a JSON string.
func validJSON(raw json.RawMessage) json.RawMessage {
	if json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(string(raw))
	return b
}

// oneLine squeezes text onto one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// firstLine returns the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return oneLine(line, 120)
}
