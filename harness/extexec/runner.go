package extexec

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/provider"
)

// Runner runs turns of exo sessions with an external agent, one agent process per session (kept
// between turns while its conversation matches the log). It is safe for concurrent turns on
// different sessions, and has the shape of exo's own executor (Prompt).
type Runner struct {
	h     *harness.Harness
	x     *executor.Executor
	agent Agent
	opts  executor.Options

	mu       sync.Mutex
	sessions map[string]*Session
	busy     map[string]bool
	last     Overhead
}

// Overhead is exo's own time in a turn: before the prompt reached the agent, after the agent
// ended the turn, and while the agent waited on exo during its steps.
type Overhead struct {
	Before, After, Steps time.Duration
	Calls                int
}

// NewRunner returns a runner of agent; opts are exo's executor options (approvals, scope, hooks,
// callbacks), applied to the agent's tool calls exactly as to exo's own.
func NewRunner(h *harness.Harness, agent Agent, opts executor.Options) *Runner {
	opts.Name = agent.Name()
	return &Runner{h: h, x: executor.New(h, opts), agent: agent, opts: opts, sessions: map[string]*Session{}, busy: map[string]bool{}}
}

// Executor is exo's executor the agent's tool calls go through (named after the agent).
func (r *Runner) Executor() *executor.Executor { return r.x }

// Harness is the harness the runner records into.
func (r *Runner) Harness() *harness.Harness { return r.h }

// Options are exo's executor options in force.
func (r *Runner) Options() executor.Options { return r.opts }

// LastOverhead is exo's own time in the last finished turn (for benchmarks).
func (r *Runner) LastOverhead() Overhead {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// Session returns a session's live agent state (nil when none runs).
func (r *Runner) Session(id string) *Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sessions[id]
}

// Prompt appends a user message and runs the turn it starts with the agent.
func (r *Runner) Prompt(ctx context.Context, sessionID, text, source string) (executor.Result, error) {
	entered := time.Now()
	res := executor.Result{SessionID: sessionID}
	if !r.claim(sessionID) {
		return res, executor.ErrBusy
	}
	defer r.release(sessionID)
	if err := r.x.CheckBudget(sessionID); err != nil {
		res.Failure = err.Error()
		return res, err
	}
	if bp := r.opts.BeforePrompt; bp != nil {
		if err := bp(sessionID); err != nil {
			return res, err
		}
	}
	text, source, blocked, err := r.x.PreparePrompt(ctx, sessionID, text, source)
	if err != nil || blocked != "" {
		res.Failure = blocked
		return res, err
	}
	s, err := r.h.Session(sessionID)
	if err != nil {
		return res, err
	}
	ss, notes, err := r.ready(s)
	if err != nil {
		return res, err
	}
	if err := r.selected(s, ss); err != nil {
		return res, err
	}
	if err := r.announce(s, ss); err != nil {
		return res, err
	}
	return r.turn(ctx, ss, s, text, source, notes, entered)
}

// selected records executor.selected when the session's executor in force, its native tool mode
// or its process's confinement is not the one this turn runs with.
func (r *Runner) selected(s *harness.Session, ss *Session) error {
	st, err := r.h.State(s.ID)
	if err != nil {
		return err
	}
	rec := harness.ExecutorSelected{Name: r.agent.Name(), Version: r.agent.Version(), Binary: r.agent.Binary(), NativeTools: r.agent.NativeTools()}
	if enf := ss.Proc.Enforcement(); enf != nil {
		rec.Confinement = enf.String()
	}
	if st.Executor == rec.Name && st.ExecutorNative == rec.NativeTools && st.ExecutorConfinement == rec.Confinement {
		return nil
	}
	_, err = r.h.AppendOn(s.ID, s.Branch, harness.MustRecord(harness.TypeExecutorSelected, harness.ActorUser, rec))
	return err
}

// announce records executor.started once for each agent process: what confines it, and plainly
// what does not.
func (r *Runner) announce(s *harness.Session, ss *Session) error {
	if ss.announced {
		return nil
	}
	rec := harness.ExecutorStarted{Executor: r.agent.Name(), NativeTools: r.agent.NativeTools(), Confinement: "NOT CONFINED (no sandbox)",
		Unconfined: []string{"the agent process runs without exo's confinement helper"}}
	if enf := ss.Proc.Enforcement(); enf != nil {
		rec.Confinement, rec.Unconfined = enf.String(), enf.Unenforced
	}
	rec.Allowed = len(rec.Unconfined) > 0 && r.agent.NativeTools() // it started: the user allowed it
	if _, err := r.h.AppendOn(s.ID, s.Branch, harness.MustRecord(harness.TypeExecutorStarted, harness.ActorHarness, rec)); err != nil {
		return err
	}
	ss.announced = true
	return nil
}

// claim marks a session busy; release frees it.
func (r *Runner) claim(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.busy[id] {
		return false
	}
	r.busy[id] = true
	return true
}

func (r *Runner) release(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.busy, id)
}

// StopSession stops a session's agent process between turns (its session was removed, or its
// turns went to another executor): none is left running for it. A turn running on it keeps its
// agent. The session's next turn here starts one again from the log.
func (r *Runner) StopSession(id string) error {
	r.mu.Lock()
	ss := r.sessions[id]
	if ss == nil || r.busy[id] {
		r.mu.Unlock()
		return nil
	}
	delete(r.sessions, id)
	r.mu.Unlock()
	return ss.stop()
}

// Close stops every agent process.
func (r *Runner) Close() error {
	r.mu.Lock()
	all := r.sessions
	r.sessions = map[string]*Session{}
	r.mu.Unlock()
	var errs []error
	for _, s := range all {
		errs = append(errs, s.stop())
	}
	return errors.Join(errs...)
}

// ready returns an agent process whose conversation matches the session's log: the running one
// when nothing but user-side notes was added since its last turn (the notes are returned, to
// send with the prompt), else a new one started from the prompt view.
func (r *Runner) ready(s *harness.Session) (*Session, []string, error) {
	spec, err := r.h.Model(s.Settings["model"])
	if err != nil {
		return nil, nil, err
	}
	v, err := r.x.ViewOf(s.Branch, spec.ModelID)
	if err != nil {
		return nil, nil, err
	}
	msgs := append([]provider.Message(nil), v.Messages...)
	r.mu.Lock()
	cur := r.sessions[s.ID]
	r.mu.Unlock()
	if cur != nil && cur.alive() && cur.Branch == s.Branch && cur.Model == spec.Name && len(msgs) >= cur.viewLen {
		if notes, ok := userNotes(msgs[cur.viewLen:]); ok {
			return cur, notes, nil
		}
	}
	if cur != nil {
		_ = cur.stop()
	}
	next, err := r.start(s, spec, msgs)
	if err != nil {
		return nil, nil, err
	}
	r.mu.Lock()
	r.sessions[s.ID] = next
	r.mu.Unlock()
	return next, nil, nil
}

// userNotes returns the texts of msgs when all are user-side messages.
func userNotes(msgs []provider.Message) ([]string, bool) {
	var out []string
	for _, m := range msgs {
		if m.Role != provider.RoleUser {
			return nil, false
		}
		out = append(out, m.Text)
	}
	return out, true
}

// start prepares a session's state folders, endpoint and tools, and starts the agent.
func (r *Runner) start(s *harness.Session, spec harness.ModelSpec, msgs []provider.Message) (*Session, error) {
	dirs, err := SessionDirs(r.h.Home(), safeExecutorName(r.agent.Name()), s.ID)
	if err != nil {
		return nil, err
	}
	up, err := OpenUpstream(r.h, spec.Name)
	if err != nil {
		return nil, err
	}
	log := NewLog(r.h, s.ID, r.agent.Name(), spec)
	id := s.ID
	log.SetBudget(func() (executor.BudgetCheck, error) {
		cur, err := r.h.Session(id)
		if err != nil || !executor.HasBudgets(cur) {
			return executor.BudgetCheck{}, err
		}
		log.wait() // the answers so far count
		return r.x.Budgets(id)
	})
	ep, err := NewEndpoint(log, up)
	if err != nil {
		log.Close()
		return nil, err
	}
	ss := &Session{ID: s.ID, Dirs: dirs, Endpoint: ep, Log: log, Branch: s.Branch, Model: spec.Name, viewLen: len(msgs)}
	ss.Tools = &HostTools{X: r.x, Log: log}
	proc, err := r.agent.Start(ss, s, spec, msgs)
	if err != nil {
		ep.Close()
		log.Close()
		return nil, err
	}
	ss.Proc = proc
	return ss, nil
}

// safeExecutorName turns an executor name into a folder name (acp:gemini --acp → acp-gemini--acp).
func safeExecutorName(name string) string {
	return strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' {
			return c
		}
		return '-'
	}, name)
}

// forget drops a session's agent.
func (r *Runner) forget(ss *Session) {
	r.mu.Lock()
	if r.sessions[ss.ID] == ss {
		delete(r.sessions, ss.ID)
	}
	r.mu.Unlock()
	_ = ss.stop()
}

// Session is one exo session's agent: its state folders, endpoint, recorder, exo's tools, the
// process, and what its conversation corresponds to in the log.
type Session struct {
	ID       string
	Dirs     Dirs
	Endpoint *Endpoint
	Log      *Log
	Tools    *HostTools
	Proc     Proc
	// Branch and Model are the branch and registered model the agent's conversation follows.
	Branch string
	Model  string
	// viewLen is how many messages of the branch's prompt view the agent knows.
	viewLen int
	// announced is set once executor.started was recorded for this process.
	announced bool
}

// alive reports whether the agent still runs.
func (s *Session) alive() bool { return s.Proc != nil && s.Proc.Alive() }

// stop ends the agent, the endpoint and the recorder.
func (s *Session) stop() error {
	var err error
	if s.Proc != nil {
		err = s.Proc.Stop()
	}
	if s.Endpoint != nil {
		err = errors.Join(err, s.Endpoint.Close())
	}
	if s.Log != nil {
		s.Log.Close()
	}
	return err
}
