// Package claude runs the real Claude Code CLI as an exo executor: `claude -p` in stream-json
// mode with its control channel, its model traffic through exo's loopback endpoint (the sealed
// key stays in exo), its tools exo's own (bash in the sandbox, the file tools with scope) offered
// in-band as an SDK MCP server, or, with NativeTools, Claude's own tools with every use approved by
// exo. Every message becomes exo events; the log stays the truth, so a fork, a rewind or a
// restart gives Claude the conversation as the log has it.
package claude

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"exo/harness"
	"exo/harness/executor"
)

// Options configure the Claude Code executor.
type Options struct {
	// Exec are the options of exo's own executor (approvals, scope, system extras, OnDelta,
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
}

// Executor drives one Claude Code process per exo session (kept between turns while its
// conversation matches the log). It is safe for concurrent turns on different sessions.
type Executor struct {
	h       *harness.Harness
	x       *executor.Executor
	opts    Options
	bin     string
	version string

	mu       sync.Mutex
	sessions map[string]*session
	busy     map[string]bool
	// last is exo's own time in the last finished turn (for benchmarks).
	last overhead
}

// overhead is exo's own time in a turn: before the prompt reached Claude, after its result,
// and while Claude waited on exo's endpoint and control answers during the steps.
type overhead struct {
	before, after, steps time.Duration
	calls                int
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
	xo := opts.Exec
	xo.Name = Name
	return &Executor{h: h, x: executor.New(h, xo), opts: opts, bin: bin, version: v,
		sessions: map[string]*session{}, busy: map[string]bool{}}, nil
}

// Name returns "claude-code".
func (e *Executor) Name() string { return Name }

// Version is claude's version as it reports it.
func (e *Executor) Version() string { return e.version }

// Binary is the claude program's path.
func (e *Executor) Binary() string { return e.bin }

// ErrBusy means a turn is already running on the session.
var ErrBusy = executor.ErrBusy

// Prompt appends a user message and runs the turn it starts with Claude.
func (e *Executor) Prompt(ctx context.Context, sessionID, text, source string) (executor.Result, error) {
	entered := time.Now()
	if !e.claim(sessionID) {
		return executor.Result{SessionID: sessionID}, ErrBusy
	}
	defer e.release(sessionID)
	res := executor.Result{SessionID: sessionID}
	if err := e.x.CheckBudget(sessionID); err != nil {
		res.Failure = err.Error()
		return res, err
	}
	if bp := e.opts.Exec.BeforePrompt; bp != nil {
		if err := bp(sessionID); err != nil {
			return res, err
		}
	}
	text, source, blocked, err := e.x.PreparePrompt(ctx, sessionID, text, source)
	if err != nil || blocked != "" {
		res.Failure = blocked
		return res, err
	}
	s, err := e.h.Session(sessionID)
	if err != nil {
		return res, err
	}
	sess, notes, err := e.ready(s)
	if err != nil {
		return res, err
	}
	if err := e.selected(s, sess); err != nil {
		return res, err
	}
	return e.runTurn(ctx, sess, s, text, source, notes, entered)
}

// selected records executor.selected when the session's executor in force is another one.
func (e *Executor) selected(s *harness.Session, sess *session) error {
	st, err := e.h.State(s.ID)
	if err != nil {
		return err
	}
	if st.Executor == Name {
		return nil
	}
	rec := harness.ExecutorSelected{Name: Name, Version: e.version, Binary: e.bin, NativeTools: e.opts.NativeTools}
	if enf := sess.proc.Enforcement(); enf != nil {
		rec.Confinement = enf.String()
	}
	_, err = e.h.AppendOn(s.ID, s.Branch, harness.MustRecord(harness.TypeExecutorSelected, harness.ActorUser, rec))
	return err
}

// claim marks a session busy; release frees it.
func (e *Executor) claim(id string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.busy[id] {
		return false
	}
	e.busy[id] = true
	return true
}

func (e *Executor) release(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.busy, id)
}

// Close stops every Claude process.
func (e *Executor) Close() error {
	e.mu.Lock()
	all := e.sessions
	e.sessions = map[string]*session{}
	e.mu.Unlock()
	var errs []error
	for _, s := range all {
		errs = append(errs, s.stop())
	}
	return errors.Join(errs...)
}

// String describes the executor.
func (e *Executor) String() string { return fmt.Sprintf("%s %s (%s)", Name, e.version, e.bin) }
