package workspaces

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"exo/harness/api"
	"exo/harness/eventlog"
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
	Snapshot *api.WorkspaceSnapshot
}

// Exec runs a command in the session's persistent shell. Output streams live to subscribers
// (and opts.Stream); the model text is redacted of secrets; files the command changed are
// snapshotted and recorded. It appends no tool events: the caller records the call. The command
// runs in the runtime room (RunCommand), a sandbox.exec span when telemetry is on.
func (wk *Workspaces) Exec(ctx context.Context, sessionID, command string, opts ExecOptions) (ExecResult, error) {
	rt, err := wk.rt.Runtime(sessionID)
	if err != nil {
		return ExecResult{}, err
	}
	if err := wk.ensureBaseline(sessionID, opts.Branch, rt); err != nil {
		return ExecResult{}, err
	}
	rt.Run.Lock()
	defer rt.Run.Unlock()
	live := &liveOutput{wk: wk, session: sessionID, extra: opts.Stream}
	if r := wk.sec.Redactor(); r != nil {
		live.red = r.NewStream()
	}
	ro := sandbox.RunOptions{Timeout: opts.Timeout, Stream: live, Name: "output of " + oneLine(command)}
	if red := wk.sec.RedactStream(); red != nil {
		ro.Filter = red // redacted before the head/tail cut, so no cut leaves part of a secret
	}
	res, err := wk.rt.RunCommand(ctx, rt, command, ro)
	live.flush()
	if err != nil {
		return ExecResult{}, fmt.Errorf("run in sandbox of %s: %w", sessionID, err)
	}
	res.Output = wk.sec.Redact(res.Output)
	out := ExecResult{Result: res}
	out.Snapshot, err = wk.snapshot(sessionID, opts.Branch, opts.CallID, true, false, opts.Hold)
	return out, err
}

// UserExec runs a command typed by the user (`exo exec`, `!cmd` in the TUI) and records it as
// tool events with actor user, so the agent sees it on its next turn.
func (wk *Workspaces) UserExec(ctx context.Context, sessionID, command string, opts ExecOptions) (ExecResult, error) {
	callID := "user-" + eventlog.NewID()
	opts.CallID = callID
	if _, err := wk.log.AppendOn(sessionID, opts.Branch, eventlog.MustRecord(api.TypeToolStarted, api.ActorUser,
		api.ToolStarted{CallID: callID, Tool: "bash", Summary: command, Args: mustJSON(map[string]string{"command": command})})); err != nil {
		return ExecResult{}, err
	}
	res, err := wk.Exec(ctx, sessionID, command, opts)
	if err == nil && res.Detached != "" { // a user's command is a turn of its own: what it detached ends with it
		if sb, serr := wk.rt.Runtime(sessionID); serr == nil {
			sb.Shell.KillDetached(res.Detached)
			res.Notes = append(res.Notes, "what the command left running was killed with it: use exo exec --background to keep a process")
		}
	}
	done := api.ToolCompleted{CallID: callID, Tool: "bash"}
	if err != nil {
		done.IsError, done.Output = true, err.Error()
	} else {
		done = ToolResultOf(callID, "bash", res.Result)
	}
	if _, aerr := wk.log.AppendOn(sessionID, opts.Branch, eventlog.MustRecord(api.TypeToolCompleted, api.ActorUser, done)); aerr != nil && err == nil {
		err = aerr
	}
	return res, err
}

// ToolResultOf turns a sandbox result into a tool.completed payload.
func ToolResultOf(callID, tool string, r sandbox.Result) api.ToolCompleted {
	code := r.ExitCode
	out := r.Output
	for _, n := range r.Notes {
		out += "\n[exo: " + n + "]"
	}
	return api.ToolCompleted{CallID: callID, Tool: tool, Output: out, ExitCode: &code, Killed: r.KillReason,
		Truncated: r.Truncated, TotalBytes: r.TotalBytes, Artifact: r.ArtifactRef, DurationMs: r.Duration.Milliseconds()}
}

// liveOutput publishes a command's display-safe output to subscribers as it arrives, with
// secret values redacted even when split across chunks.
type liveOutput struct {
	wk      *Workspaces
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
	l.wk.log.Publish(api.Notice{Session: l.session, Output: append([]byte(nil), b...)})
}

// oneLine squeezes text onto one line of at most 200 runes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		return string(r[:199]) + "…"
	}
	return s
}
