package executor

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"exo/harness"
)

// Errors of spawning a subagent.
var (
	ErrDepth     = errors.New("subagent depth limit reached")
	ErrTooMany   = errors.New("too many subagents running")
	ErrNoHandle  = errors.New("no such subagent")
	ErrScopeHook = errors.New("a subagent scope needs governance (no scope hook is installed)")
)

// subagents tracks the children this executor runs, across sessions.
type subagents struct {
	mu      sync.Mutex
	running int
	runs    map[string]*agentRun // by handle (the child session's name)
	wg      sync.WaitGroup
}

func (s *subagents) init() { s.runs = map[string]*agentRun{} }

// agentRun is one child session running a task in the background.
type agentRun struct {
	parent, child, handle string
	done                  chan struct{}
	ctx                   context.Context
	cancel                context.CancelFunc
	report                harness.SubagentCompleted
	waiters               int
}

// SpawnRequest describes a subagent to start.
type SpawnRequest struct {
	Parent string   // the parent session's id
	Branch string   // the parent's branch (events are recorded there)
	CallID string   // the spawn_agent call, if any
	Task   string   // the child's prompt
	Allow  []string // scope globs, no wider than the parent's
	Deny   []string
	// Turn are the options of the parent's turn: a subagent of a headless run is headless too.
	Turn TurnOptions
}

// Spawn starts a child session for a task and runs it in the background: a fork of the parent at
// its head with its own copy of the workspace, a fresh prompt view (subagent.started), a scope
// narrowed from the parent's, and depth one more than the parent's. The parent's log gets
// subagent.spawned now and subagent.completed with the child's final answer when it ends.
func (x *Executor) Spawn(req SpawnRequest) (string, error) {
	parent, err := x.h.Session(req.Parent)
	if err != nil {
		return "", err
	}
	depth := depthOf(parent) + 1
	if depth > x.opts.MaxDepth {
		return "", fmt.Errorf("%w: %s is at depth %d of %d; do the work yourself", ErrDepth, parent.Name, depth-1, x.opts.MaxDepth)
	}
	if (len(req.Allow) > 0 || len(req.Deny) > 0) && x.opts.NarrowScope == nil {
		return "", ErrScopeHook
	}
	if !x.sub.reserve(x.opts.MaxAgents) {
		return "", fmt.Errorf("%w (%d): wait for one with wait_agent first", ErrTooMany, x.opts.MaxAgents)
	}
	child, err := x.newChild(parent, depth, req)
	if err != nil {
		x.sub.unreserve()
		return "", err
	}
	run := x.sub.add(parent.ID, child)
	go x.runChild(run, req.Task, parent.Name, req.Turn)
	return child.Name, nil
}

// newChild forks the parent into a child session and records the spawn on both sides.
func (x *Executor) newChild(parent *harness.Session, depth int, req SpawnRequest) (*harness.Session, error) {
	child, err := x.h.Fork(parent.ID, 0, harness.ForkOptions{Name: parent.Name + "-sub-" + harness.NewID()[:6]})
	if err != nil {
		return nil, fmt.Errorf("spawn a subagent of %s: %w", parent.Name, err)
	}
	if child, err = x.h.UpdateSession(child.ID, func(s *harness.Session) error {
		s.Settings[harness.SettingDepth] = strconv.Itoa(depth)
		return nil
	}); err != nil {
		return nil, err
	}
	if _, err := x.h.Append(child.ID, harness.MustRecord(harness.TypeSubagentStarted, x.actor(),
		harness.SubagentStarted{Parent: parent.ID, CallID: req.CallID, Task: req.Task, Depth: depth})); err != nil {
		return nil, err
	}
	if len(req.Allow) > 0 || len(req.Deny) > 0 {
		if err := x.opts.NarrowScope(parent.ID, child.ID, req.Allow, req.Deny); err != nil {
			_, _ = x.h.Append(child.ID, harness.MustRecord(harness.TypeSessionFinished, harness.ActorHarness,
				harness.SessionFinished{Summary: "subagent not started: " + err.Error()}))
			return nil, fmt.Errorf("scope of the subagent: %w", err)
		}
	}
	_, err = x.h.AppendOn(parent.ID, req.Branch, harness.MustRecord(harness.TypeSubagentSpawned, x.actor(), harness.SubagentSpawned{
		Handle: child.Name, Session: child.ID, CallID: req.CallID, Task: req.Task, Allow: req.Allow, Deny: req.Deny, Depth: depth}))
	return child, err
}

// runChild runs the child's turn and reports to the parent.
func (x *Executor) runChild(run *agentRun, task, parentName string, to TurnOptions) {
	defer x.sub.wg.Done()
	prompt := task + "\n\n[exo: you are a subagent of session " + parentName + ", working in your own copy of its workspace. " +
		"Your final answer is your report to it: say what you did, what you found and which files you changed.]"
	defer run.cancel()
	to.MaxSteps = 0 // the child gets the executor's step limit, not its parent's
	res, err := x.PromptWith(run.ctx, run.child, prompt, "subagent", to)
	rep := harness.SubagentCompleted{Handle: run.handle, Session: run.child, Response: res.Response, Failure: res.Failure,
		Steps: res.Steps, Tokens: int(res.Usage.Input + res.Usage.Output), Cost: res.Cost}
	if err != nil && rep.Failure == "" {
		rep.Failure = err.Error()
	}
	if res.Cancelled && rep.Failure == "" {
		rep.Failure = "the subagent's turn was cancelled before it finished (stopped, or its step limit was reached)"
	}
	x.sub.finish(run, rep)
	_, _ = x.h.Append(run.parent, harness.MustRecord(harness.TypeSubagentCompleted, x.actor(), run.report))
	close(run.done)
}

// WaitAgent waits for a subagent of parent by handle and returns its report.
func (x *Executor) WaitAgent(ctx context.Context, parent, handle string) (harness.SubagentCompleted, error) {
	run := x.sub.waiter(parent, handle)
	if run == nil {
		return harness.SubagentCompleted{}, fmt.Errorf("%w %q among this session's subagents", ErrNoHandle, handle)
	}
	select {
	case <-run.done:
		return run.report, nil
	case <-ctx.Done():
		x.sub.unwait(run)
		return harness.SubagentCompleted{}, ctx.Err()
	}
}

// StopAgents cancels every running subagent (their turns end with turn.cancelled and their
// parents get subagent.completed) and waits for them; for shutdown.
func (x *Executor) StopAgents() {
	x.sub.mu.Lock()
	for _, r := range x.sub.runs {
		r.cancel()
	}
	x.sub.mu.Unlock()
	x.sub.wg.Wait()
}

// RunningAgents counts the subagents this executor runs now (started, not yet reported): work
// the daemon must not cut by an idle exit or a drain.
func (x *Executor) RunningAgents() int {
	x.sub.mu.Lock()
	defer x.sub.mu.Unlock()
	return x.sub.running
}

// WaitAgents blocks until every subagent started by this executor has ended (for shutdown and
// tests).
func (x *Executor) WaitAgents() { x.sub.wg.Wait() }

// depthOf reads a session's subagent depth.
func depthOf(s *harness.Session) int {
	d, _ := strconv.Atoi(s.Settings[harness.SettingDepth])
	return d
}

func (s *subagents) reserve(limit int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running >= limit {
		return false
	}
	s.running++
	return true
}

func (s *subagents) unreserve() {
	s.mu.Lock()
	s.running--
	s.mu.Unlock()
}

func (s *subagents) add(parent string, child *harness.Session) *agentRun {
	r := &agentRun{parent: parent, child: child.ID, handle: child.Name, done: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	s.mu.Lock()
	s.runs[r.handle] = r
	s.wg.Add(1)
	s.mu.Unlock()
	return r
}

// finish stores the report; it counts as delivered when a wait_agent call is waiting for it.
func (s *subagents) finish(r *agentRun, rep harness.SubagentCompleted) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rep.Delivered = r.waiters > 0
	r.report = rep
	s.running--
}

func (s *subagents) waiter(parent, handle string) *agentRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.runs[handle]
	if r == nil || r.parent != parent {
		return nil
	}
	r.waiters++
	return r
}

func (s *subagents) unwait(r *agentRun) {
	s.mu.Lock()
	r.waiters--
	s.mu.Unlock()
}
