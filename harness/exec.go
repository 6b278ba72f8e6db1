package harness

import (
	"context"
	"fmt"
	"io"
	"time"

	"exo/harness/secrets"
	"exo/sandbox"
)

// ExecOptions tune one command run in a session's sandbox.
type ExecOptions struct {
	// Timeout bounds the command (0: the sandbox default).
	Timeout time.Duration
	// CallID links the snapshot taken after the command to its tool call.
	CallID string
	// Branch, when set, is the branch the caller writes to (rewinds in between fail the append).
	Branch string
	// Stream receives the display-safe live output in addition to subscribers.
	Stream io.Writer
	// Hold, when set, holds the snapshot event for up to this long (see Hold) instead of
	// appending it: the caller's commit of the call's result carries it.
	Hold time.Duration
}

// ExecResult is a finished command: the sandbox's result (already redacted) and the snapshot
// event appended when the command changed files.
type ExecResult struct {
	sandbox.Result
	Snapshot *WorkspaceSnapshot
}

// Exec runs a command in the session's persistent shell. Output streams live to subscribers
// (and opts.Stream); the model text is redacted of secrets; files the command changed are
// snapshotted and recorded. It appends no tool events: the caller records the call. The command
// is a sandbox.exec span (a child of ctx's span) when telemetry is on.
func (h *Harness) Exec(ctx context.Context, sessionID, command string, opts ExecOptions) (ExecResult, error) {
	rt, err := h.Runtime(sessionID)
	if err != nil {
		return ExecResult{}, err
	}
	if err := h.ensureBaseline(sessionID, opts.Branch, rt); err != nil {
		return ExecResult{}, err
	}
	rt.runMu.Lock()
	defer rt.runMu.Unlock()
	live := &liveOutput{h: h, session: sessionID, extra: opts.Stream}
	if r := h.redactor(); r != nil {
		live.red = r.NewStream()
	}
	ro := sandbox.RunOptions{Timeout: opts.Timeout, Stream: live, Name: "output of " + oneLine(command)}
	if red := h.RedactStream(); red != nil {
		ro.Filter = red // redacted before the head/tail cut, so no cut leaves part of a secret
	}
	ctx, span := h.startSandboxSpan(ctx, sessionID, command, SandboxShell)
	res, err := rt.Shell.Run(ctx, command, ro)
	live.flush()
	if err != nil {
		endSandboxSpan(span, nil, "", err)
		return ExecResult{}, fmt.Errorf("run in sandbox of %s: %w", sessionID, err)
	}
	endSandboxSpan(span, &res.ExitCode, res.KillReason, nil)
	res.Output = h.Redact(res.Output)
	out := ExecResult{Result: res}
	out.Snapshot, err = h.snapshot(sessionID, opts.Branch, opts.CallID, true, false, opts.Hold)
	return out, err
}

// UserExec runs a command typed by the user (`exo exec`, `!cmd` in the TUI) and records it as
// tool events with actor user, so the agent sees it on its next turn.
func (h *Harness) UserExec(ctx context.Context, sessionID, command string, opts ExecOptions) (ExecResult, error) {
	callID := "user-" + NewID()
	opts.CallID = callID
	if _, err := h.AppendOn(sessionID, opts.Branch, MustRecord(TypeToolStarted, ActorUser,
		ToolStarted{CallID: callID, Tool: "bash", Summary: command, Args: mustJSON(map[string]string{"command": command})})); err != nil {
		return ExecResult{}, err
	}
	res, err := h.Exec(ctx, sessionID, command, opts)
	done := ToolCompleted{CallID: callID, Tool: "bash"}
	if err != nil {
		done.IsError, done.Output = true, err.Error()
	} else {
		done = ToolResultOf(callID, "bash", res.Result)
	}
	if _, aerr := h.AppendOn(sessionID, opts.Branch, MustRecord(TypeToolCompleted, ActorUser, done)); aerr != nil && err == nil {
		err = aerr
	}
	return res, err
}

// ToolResultOf turns a sandbox result into a tool.completed payload.
func ToolResultOf(callID, tool string, r sandbox.Result) ToolCompleted {
	code := r.ExitCode
	out := r.Output
	for _, n := range r.Notes {
		out += "\n[exo: " + n + "]"
	}
	return ToolCompleted{CallID: callID, Tool: tool, Output: out, ExitCode: &code, Killed: r.KillReason,
		Truncated: r.Truncated, TotalBytes: r.TotalBytes, Artifact: r.ArtifactRef, DurationMs: r.Duration.Milliseconds()}
}

// liveOutput publishes a command's display-safe output to subscribers as it arrives, with
// secret values redacted even when split across chunks.
type liveOutput struct {
	h       *Harness
	session string
	extra   io.Writer
	red     *secrets.Stream
}

// Write publishes a redacted copy of p.
func (l *liveOutput) Write(p []byte) (int, error) {
	out := p
	if l.red != nil {
		out = l.red.Next(p)
	}
	l.emit(out)
	return len(p), nil
}

// flush publishes what the redactor held back.
func (l *liveOutput) flush() {
	if l.red != nil {
		l.emit(l.red.Flush())
	}
}

// emit sends bytes to the extra writer and subscribers.
func (l *liveOutput) emit(b []byte) {
	if len(b) == 0 {
		return
	}
	if l.extra != nil {
		l.extra.Write(b)
	}
	l.h.Publish(Notice{Session: l.session, Output: append([]byte(nil), b...)})
}
