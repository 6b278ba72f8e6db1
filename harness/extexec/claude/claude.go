// Package claude runs the real Claude Code CLI as an exo executor: `claude -p` in stream-json
// mode with its control channel, its model traffic through exo's loopback endpoint (the sealed
// key stays in exo), its tools exo's own (bash in the sandbox, the file tools with scope) offered
// in-band as an SDK MCP server, or, with NativeTools, Claude's own tools with every use approved by
// exo. Every message becomes exo events; the log stays the truth, so a fork, a rewind or a
// restart gives Claude the conversation as the log has it. The session plumbing shared with the
// other external executors is extexec.Runner.
package claude

import (
	"fmt"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec"
)

// Options configure the Claude Code executor.
type Options struct {
	// Exec are the options of exo's own executor (approvals, scope, system extras, hooks, OnDelta,
	// OnTool…): Claude's tool calls get exactly the same treatment.
	Exec executor.Options
	// NativeTools lets Claude use its own tools (each use approved through exo) instead of exo's.
	NativeTools bool
	// Binary is the claude program (default: FindBinary).
	Binary string
	// MaxRetries is CLAUDE_CODE_MAX_RETRIES for Claude's own retries of model calls (default 2).
	MaxRetries int
	// ExtraArgs are appended to claude's arguments.
	ExtraArgs []string
	// InitTimeout bounds how long Claude may take to answer exo's initialize (default 2 minutes).
	InitTimeout time.Duration
	// AllowUnconfined runs Claude with native tools even where its process cannot be fully
	// confined (the user's explicit consent; what is missing is recorded and shown).
	AllowUnconfined bool
}

// Executor runs sessions' turns with Claude Code, one claude process per session (kept between
// turns while its conversation matches the log). It is safe for concurrent turns on different
// sessions; Prompt and Close come from extexec.Runner.
type Executor struct {
	*extexec.Runner
	a *agent
}

// agent is Claude Code as an extexec.Agent.
type agent struct {
	h       *harness.Harness
	x       *executor.Executor
	opts    Options
	bin     string
	version string
}

// New returns the executor, checking that claude runs.
func New(h *harness.Harness, opts Options) (*Executor, error) {
	bin := opts.Binary
	if bin == "" {
		var err error
		if bin, err = FindBinary(); err != nil {
			return nil, err
		}
	}
	v, err := Version(bin)
	if err != nil {
		return nil, err
	}
	if opts.MaxRetries <= 0 {
		opts.MaxRetries = 2
	}
	a := &agent{h: h, opts: opts, bin: bin, version: v}
	r := extexec.NewRunner(h, a, opts.Exec)
	a.x = r.Executor()
	return &Executor{Runner: r, a: a}, nil
}

// ErrBusy means a turn is already running on the session.
var ErrBusy = executor.ErrBusy

// Name returns "claude-code".
func (a *agent) Name() string { return Name }

// Version is claude's version as it reports it.
func (a *agent) Version() string { return a.version }

// Binary is the claude program's path.
func (a *agent) Binary() string { return a.bin }

// NativeTools reports whether Claude keeps its own tools.
func (a *agent) NativeTools() bool { return a.opts.NativeTools }

// Version is claude's version as it reports it.
func (e *Executor) Version() string { return e.a.version }

// Binary is the claude program's path.
func (e *Executor) Binary() string { return e.a.bin }

// String describes the executor.
func (e *Executor) String() string { return fmt.Sprintf("%s %s (%s)", Name, e.a.version, e.a.bin) }
