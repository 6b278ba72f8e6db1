// Package service is the harness API (harness/api) implemented over one in-process Harness and
// exo's executor. The daemon serves it over a unix socket; tests use it directly. It owns what
// must outlive any one client: running turns, approvals, wake-ups after background work, and the
// record of which clients watch which session.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/executor"
	"exo/harness/executors"
	"exo/harness/governance"
	"exo/harness/plugins"
)

// Options tune a Service.
type Options struct {
	// Executable is exo's binary, re-run for detached background tasks.
	Executable string
	// Executor tunes exo's executor (governance hooks are added by New).
	Executor executor.Options
	// Daemon describes the daemon serving this service (nil in-process).
	Daemon *api.DaemonInfo
	// Log receives the service's warnings (default: discarded).
	Log *slog.Logger
}

// Service implements api.Client over a Harness.
type Service struct {
	h       *harness.Harness
	x       *executor.Executor
	tracker *governance.Tracker
	plugins *plugins.Plugins
	opts    Options
	log     *slog.Logger
	// xo are the executor options every executor gets (governance, plugins); runners holds the
	// external executors opened so far, by name and tool mode.
	xo      executor.Options
	runMu   sync.Mutex
	runners map[string]executors.Runner
	// forkWidth is how many forks of an attempt set run at once (0: as many as the CPUs).
	forkWidth int

	mu      sync.Mutex
	turns   map[string]*turnRun // by turn id, running and recently finished
	running map[string]*turnRun // by session
	// removing marks the sessions being removed: no turn begins on one meanwhile.
	removing map[string]bool
	last     map[string]*turnRun // the last finished turn of each session
	order    []*turnRun          // finished turns, oldest first (bounded)
	kept     int                 // resultBytes of the turns in order
	watches  map[string]string   // watch id → attached session ("" when none)
	// watchSubs holds each watch's subscription, to send it the answer streaming on a session
	// it turns to (Attach).
	watchSubs map[string]<-chan harness.Notice
	approve   sync.Mutex // serialises approval answers: the first one wins
	// queueMu orders queueing a prompt against the end of the turn it waits for; queued holds
	// the requests of the prompts queued (by prompt id, the id of the turn each starts).
	queueMu sync.Mutex
	queued  map[string]*queuedTurn
	// closing is set when Close begins (under mu).
	closing bool
	// followed holds the sessions whose attempt this daemon follows (session id → set id):
	// its turn, then its check (see attempts.go).
	followed sync.Map
	// settling holds the replies of settleConflicts calls by the id of their marker notice.
	settling sync.Map

	// cut takes sessions whose turn ended during or across an outage of the store (reachLoop).
	cut chan string

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

var _ api.Client = (*Service)(nil)

// New builds the service over an open harness and starts its background work (wake-ups after
// task and subagent completions). Close stops it; the harness stays open.
func New(h *harness.Harness, opts Options) *Service {
	xo := opts.Executor
	governance.InstallShared(h, &xo)
	pl := plugins.Install(h, &xo)
	ctx, cancel := context.WithCancel(context.Background())
	s := &Service{h: h, x: executor.New(h, xo), tracker: governance.NewTracker(h), plugins: pl, opts: opts, xo: xo,
		runners: map[string]executors.Runner{},
		turns:   map[string]*turnRun{}, running: map[string]*turnRun{}, last: map[string]*turnRun{}, removing: map[string]bool{},
		watches: map[string]string{}, watchSubs: map[string]<-chan harness.Notice{}, queued: map[string]*queuedTurn{}, ctx: ctx, cancel: cancel, log: opts.Log}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if err := s.RecoverAttempts(); err != nil {
		s.log.Warn("record the attempts a stopped daemon left", "err", err)
	}
	s.cut = make(chan string, 64)
	s.wg.Add(5)
	go s.reachLoop()
	go s.wakeLoop()
	go s.peerLoop()
	go s.peerConflictLoop()
	go s.governanceLoop()
	return s
}

// Harness returns the harness the service runs over (for the daemon and tests).
func (s *Service) Harness() *harness.Harness { return s.h }

// Close cancels running turns and subagents, waits for them to record their end, and stops
// the service's background work. The harness stays open.
func (s *Service) Close() error {
	s.mu.Lock()
	s.closing = true // a turn that ends from now on starts no queued prompt
	for _, r := range s.running {
		r.stop(executor.ErrStopping) // a cut answer says exo stopped, not the user
	}
	s.mu.Unlock()
	for _, x := range s.executors() {
		x.StopAgents()
	}
	s.waitTurns()
	s.cancel()
	s.wg.Wait()
	s.runMu.Lock()
	for _, r := range s.runners {
		r.Close()
	}
	s.runMu.Unlock()
	s.plugins.Close()
	return nil
}

// waitTurns waits until no turn runs, and no ended turn is still dealing with its queue.
func (s *Service) waitTurns() {
	for {
		s.queueMu.Lock() // held by a turn's end from its record to the next queued turn's start
		//lint:ignore SA2001 a barrier: the Lock above waits out a turn's end, which holds queueMu
		s.queueMu.Unlock()
		s.mu.Lock()
		var r *turnRun
		for _, r = range s.running {
			break
		}
		s.mu.Unlock()
		if r == nil {
			return
		}
		<-r.done
	}
}

// Busy reports whether the service has work that must not be cut by an idle exit or a drain:
// a running turn (exo's executor or an external one), a subagent running in the background
// (spawned by exo's executor or by an external agent through exo's tools), or a running
// background task (in a sandbox or detached).
func (s *Service) Busy() bool {
	s.mu.Lock()
	n := len(s.running)
	s.mu.Unlock()
	if n > 0 || s.agents() > 0 {
		return true
	}
	ts, _ := s.h.DetachedTasks()
	for _, t := range ts {
		if t.State() == "running" || t.State() == "starting" {
			return true
		}
	}
	return s.h.RunningTasks() > 0
}

// agents counts the subagents running under every executor of the service.
func (s *Service) agents() int {
	n := 0
	for _, x := range s.executors() {
		n += x.RunningAgents()
	}
	return n
}

// executors returns exo's executor and those of the external runners opened so far (their
// agents call exo's tools, spawn_agent included, through them).
func (s *Service) executors() []*executor.Executor {
	out := []*executor.Executor{s.x}
	s.runMu.Lock()
	defer s.runMu.Unlock()
	for _, r := range s.runners {
		if x, ok := r.(interface{ Executor() *executor.Executor }); ok {
			out = append(out, x.Executor())
		}
	}
	return out
}

// session resolves a reference.
func (s *Service) session(ref string) (*harness.Session, error) {
	se, err := s.h.Session(ref)
	if !errors.Is(err, harness.ErrNoSession) || s.h.Store().Node() == "" {
		return se, err
	}
	if p, perr := s.h.ResolvePeer(ref); perr == nil {
		state := "its daemon is gone: exo takeover " + p.Session.Name + " makes it this daemon's"
		if p.Live {
			state = "read-only here while that daemon runs"
		}
		return nil, fmt.Errorf("session %s runs on daemon %s (%s): %w", p.Session.Name, p.Node, state, harness.ErrNotOwner)
	}
	return nil, err
}

// invalid marks an error as the caller's.
func invalid(err error) error {
	if err == nil || errors.Is(err, api.ErrInvalid) {
		return err
	}
	return fmt.Errorf("%w: %w", api.ErrInvalid, err)
}

// invalidf is a formatted invalid-request error.
func invalidf(format string, a ...any) error {
	return fmt.Errorf("%w: %s", api.ErrInvalid, fmt.Sprintf(format, a...))
}

// Warnings are problems the daemon logs when it starts: a plugin turned off without stopping
// the harness (a bad OTEL_* value), or a store shared through etcd whose artifacts only this
// machine can read.
func (s *Service) Warnings() []string {
	out := slices.Clone(s.plugins.Warnings)
	st := s.h.Store()
	if st.Node() != "" && !st.Blobs().Shared() {
		out = append(out, "the store is shared through etcd but artifacts are kept in "+st.Blobs().Where()+
			": other machines cannot read them (their daemons show the metadata only); set blobs=/a/folder/every/machine/mounts in the store URL")
	}
	return out
}
