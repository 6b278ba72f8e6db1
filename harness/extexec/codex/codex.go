// Package codex runs the OpenAI Codex CLI as an exo executor through `codex app-server` (JSON-RPC
// over stdio): its model traffic goes through exo's loopback endpoint in the Responses wire format
// (the sealed key stays in exo), exo's tools are offered as dynamic tools, and its own command
// and file-change approvals go to exo's approval policy. Every notification that matters becomes
// an exo event; the log stays the truth, so a fork, a rewind or a restart starts a thread that
// is given the conversation as the log has it.
package codex

import (
	"fmt"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec"
)

// Options configure the Codex executor.
type Options struct {
	// Exec are the options of exo's own executor (approvals, scope, hooks, callbacks).
	Exec executor.Options
	// NativeTools lets Codex run its own shell commands and patches (each approved by exo, run in
	// Codex's sandbox, the workspace snapshotted after each) besides exo's tools.
	NativeTools bool
	// Binary is the codex program (default: FindBinary).
	Binary string
	// AllowUnconfined runs Codex with native tools even where its process cannot be fully
	// confined (the user's explicit consent; what is missing is recorded and shown).
	AllowUnconfined bool
}

// Executor runs sessions' turns with Codex, one app-server process per session.
type Executor struct {
	*extexec.Runner
	a *agent
}

// agent is Codex as an extexec.Agent.
type agent struct {
	h       *harness.Harness
	x       *executor.Executor
	opts    Options
	bin     string
	version string
}

// New returns the executor, checking that codex runs.
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
	a := &agent{h: h, opts: opts, bin: bin, version: v}
	r := extexec.NewRunner(h, a, opts.Exec)
	a.x = r.Executor()
	return &Executor{Runner: r, a: a}, nil
}

// Name returns "codex".
func (a *agent) Name() string { return Name }

// Version is codex's version as it reports it.
func (a *agent) Version() string { return a.version }

// Binary is the codex program's path.
func (a *agent) Binary() string { return a.bin }

// NativeTools reports whether Codex runs its own commands and patches.
func (a *agent) NativeTools() bool { return a.opts.NativeTools }

// String describes the executor.
func (e *Executor) String() string { return fmt.Sprintf("%s %s (%s)", Name, e.a.version, e.a.bin) }
