package acp

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"exo/harness"
	"exo/harness/executor"
	"exo/sandbox"
)

// envName is what a variable the agent sets for a terminal may be called.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// terminalPoll is how often a wait for a terminal's end looks at its task.
const terminalPoll = 20 * time.Millisecond

// terminals maps the agent's terminals (exo's background tasks) to the tool calls recorded
// for them.
type terminals struct {
	mu    sync.Mutex
	calls map[string]string // terminal id → call id
	done  map[string]bool
}

func newTerminals() *terminals {
	return &terminals{calls: map[string]string{}, done: map[string]bool{}}
}

// CreateTerminal runs the agent's command in exo's sandbox as a background task, after exo's
// checks and approval policy for bash.
func (c *client) CreateTerminal(ctx context.Context, p sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	defer c.spent(time.Now())
	pr := c.pr
	line := shellLine(p.Command, p.Args)
	for _, e := range p.Env {
		if !envName.MatchString(e.Name) {
			return sdk.CreateTerminalResponse{}, fmt.Errorf("terminal/create: %q is not a variable name", e.Name)
		}
		line = e.Name + "=" + shellQuote(e.Value) + " " + line
	}
	if p.Cwd != nil && *p.Cwd != "" && *p.Cwd != pr.s.Workspace {
		dir, err := pr.inWorkspace(*p.Cwd)
		if err != nil {
			return sdk.CreateTerminalResponse{}, err
		}
		line = "cd " + shellQuote(dir) + " && " + line
	}
	id, err := pr.clientCall(ctx, "terminal/create", "bash", map[string]any{"command": line}, executor.NativeCall{Command: line})
	if err != nil {
		return sdk.CreateTerminalResponse{}, err
	}
	ti, err := pr.a.h.StartTask(pr.ss.ID, pr.ss.Branch, id, line)
	if err != nil {
		_ = pr.a.x.FinishNative(pr.ss.ID, harness.ToolCompleted{CallID: id, Tool: "terminal/create", Output: err.Error(), IsError: true}, false)
		return sdk.CreateTerminalResponse{}, err
	}
	pr.terms.mu.Lock()
	pr.terms.calls[ti.ID] = id
	pr.terms.mu.Unlock()
	return sdk.CreateTerminalResponse{TerminalId: ti.ID}, nil
}

// task returns one of this agent's terminals.
func (pr *proc) task(id string) (sandbox.TaskInfo, error) {
	pr.terms.mu.Lock()
	_, ok := pr.terms.calls[id]
	pr.terms.mu.Unlock()
	if !ok {
		return sandbox.TaskInfo{}, fmt.Errorf("no terminal %q", id)
	}
	return pr.a.h.Task(pr.ss.ID, id)
}

// TerminalOutput returns a terminal's output so far (redacted) and its exit status once ended.
func (c *client) TerminalOutput(_ context.Context, p sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	defer c.spent(time.Now())
	ti, err := c.pr.task(p.TerminalId)
	if err != nil {
		return sdk.TerminalOutputResponse{}, err
	}
	out := sdk.TerminalOutputResponse{Output: c.pr.a.h.Redact(ti.Output), Truncated: ti.TotalBytes > int64(len(ti.Output))}
	if ti.State != sandbox.TaskRunning {
		out.ExitStatus = &sdk.TerminalExitStatus{ExitCode: sdk.Ptr(ti.ExitCode)}
		c.pr.terminalDone(ti)
	}
	return out, nil
}

// WaitForTerminalExit waits for a terminal's command to end (or the turn to be interrupted).
func (c *client) WaitForTerminalExit(ctx context.Context, p sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	pr := c.pr
	ti, err := pr.task(p.TerminalId)
	if err != nil {
		return sdk.WaitForTerminalExitResponse{}, err
	}
	ctx, cancel := pr.turnContext(ctx)
	defer cancel()
	for ti.State == sandbox.TaskRunning {
		select {
		case <-ctx.Done():
			return sdk.WaitForTerminalExitResponse{}, fmt.Errorf("cancelled: %w", ctx.Err())
		case <-time.After(terminalPoll):
		}
		if ti, err = pr.a.h.Task(pr.ss.ID, p.TerminalId); err != nil {
			return sdk.WaitForTerminalExitResponse{}, err
		}
	}
	pr.terminalDone(ti)
	return sdk.WaitForTerminalExitResponse{ExitCode: sdk.Ptr(ti.ExitCode)}, nil
}

// KillTerminal kills a terminal's command and keeps its output.
func (c *client) KillTerminal(_ context.Context, p sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	defer c.spent(time.Now())
	_, err := c.pr.kill(p.TerminalId)
	return sdk.KillTerminalResponse{}, err
}

// ReleaseTerminal kills a terminal's command if it still runs and records its result.
func (c *client) ReleaseTerminal(_ context.Context, p sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	defer c.spent(time.Now())
	ti, err := c.pr.kill(p.TerminalId)
	if err != nil {
		return sdk.ReleaseTerminalResponse{}, err
	}
	c.pr.terminalDone(ti)
	return sdk.ReleaseTerminalResponse{}, nil
}

// kill ends a terminal's command if it still runs.
func (pr *proc) kill(id string) (sandbox.TaskInfo, error) {
	ti, err := pr.task(id)
	if err != nil || ti.State != sandbox.TaskRunning {
		return ti, err
	}
	return pr.a.h.KillTask(pr.ss.ID, id)
}

// terminalDone records a terminal's command result once, and snapshots the workspace.
func (pr *proc) terminalDone(ti sandbox.TaskInfo) {
	pr.terms.mu.Lock()
	id, ok := pr.terms.calls[ti.ID]
	if !ok || pr.terms.done[ti.ID] {
		pr.terms.mu.Unlock()
		return
	}
	pr.terms.done[ti.ID] = true
	pr.terms.mu.Unlock()
	code := ti.ExitCode
	_ = pr.a.x.FinishNative(pr.ss.ID, harness.ToolCompleted{CallID: id, Tool: "terminal/create", Output: ti.Output, ExitCode: &code,
		Killed: ti.KillReason, Artifact: ti.ArtifactRef, IsError: ti.State == sandbox.TaskKilled || code != 0}, true)
}

// killAll kills the agent's terminals still running.
func (t *terminals) killAll(pr *proc) {
	t.mu.Lock()
	var ids []string
	for id := range t.calls {
		if !t.done[id] {
			ids = append(ids, id)
		}
	}
	t.mu.Unlock()
	for _, id := range ids {
		_, _ = pr.a.h.KillTask(pr.ss.ID, id)
	}
}

// shellLine joins a command and its arguments into one shell line.
func shellLine(cmd string, args []string) string {
	if len(args) == 0 {
		return cmd
	}
	parts := []string{shellQuote(cmd)}
	for _, a := range args {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

// shellQuote quotes s for the shell.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
