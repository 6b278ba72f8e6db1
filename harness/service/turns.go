package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/executor"
	"exo/harness/executors"
	"exo/harness/governance"
	"exo/harness/provider"
)

// keepFinished bounds how many finished turns WaitTurn can still report by id (or as a
// session's last turn). Their results hold each answer whole, so the turns kept past the newest
// keepFinishedMin are also bounded by keepFinishedBytes of answers and failures: a daemon kept 256
// answers (40 MiB of 160 KB ones), and every session's last one for its life.
const (
	keepFinished      = 256
	keepFinishedMin   = 4
	keepFinishedBytes = 256 << 10
)

// resultBytes is what a finished turn's result holds of text.
func resultBytes(r *turnRun) int { return len(r.res.Response) + len(r.res.Failure) }

// turnRun is one turn the service runs.
type turnRun struct {
	id      string
	session string
	source  string
	cancel  context.CancelFunc
	// stop cancels the turn with a cause (executor.ErrStopping when exo stops).
	stop context.CancelCauseFunc
	done chan struct{}
	res  harness.TurnResult
	err  error
}

// StartTurn appends the prompt and runs the turn in the background; it returns at once.
func (s *Service) StartTurn(ctx context.Context, req api.TurnRequest) (api.TurnStarted, error) {
	if strings.TrimSpace(req.Text) == "" {
		return api.TurnStarted{}, invalidf("the prompt is empty")
	}
	if req.MaxSteps < 0 {
		return api.TurnStarted{}, invalidf("max steps must be 1 or more, not %d", req.MaxSteps)
	}
	switch req.WhenBusy {
	case api.BusyRefuse, api.BusyQueue, api.BusySteer:
	default:
		return api.TurnStarted{}, invalidf("when_busy %q: give queue, steer or nothing", req.WhenBusy)
	}
	se, err := s.session(req.Session)
	if err != nil {
		return api.TurnStarted{}, err
	}
	if _, err := s.h.Model(se.Settings["model"]); err != nil {
		return api.TurnStarted{}, invalid(err)
	}
	if err := governance.CheckStart(se.Workspace, req.OverrideGovernance); err != nil {
		return api.TurnStarted{}, fmt.Errorf("%w (run 'exo compile', or pass --override-governance)", err)
	}
	st, err := s.h.BranchState(se.Branch)
	if err != nil {
		return api.TurnStarted{}, err
	}
	mode, err := s.approvalMode(se, req.Approval)
	if err != nil {
		return api.TurnStarted{}, err
	}
	if err := s.refuseImages(se, req); err != nil {
		return api.TurnStarted{}, err
	}
	// Only a prompt that passed every check above starts the first snapshot: a refused one
	// leaves the session's log as it was.
	if se.Workspace != "" {
		s.h.PrepareBaseline(se.ID) // overlaps the first snapshot with the first model call
	}
	to := executorTurnOptions(req, mode)
	source := req.Source
	if source == "" {
		source = "api"
	}
	if req.WhenBusy != api.BusyRefuse {
		if q, ok, err := s.enqueue(se, req, source); ok || err != nil {
			return q, err
		}
	}
	run, err := s.turnFunc(se.ID, req, source, to)
	if err != nil {
		return api.TurnStarted{}, err
	}
	r, err := s.begin(se.ID, source, run)
	if isBusy(err) && req.WhenBusy != api.BusyRefuse { // a turn began since enqueue looked
		if q, ok, qerr := s.enqueue(se, req, source); ok || qerr != nil {
			return q, qerr
		}
	}
	if err != nil {
		return api.TurnStarted{}, err
	}
	return api.TurnStarted{ID: r.id, Session: se.ID, Branch: se.Branch, Seq: st.Head}, nil
}

// begin registers a turn of a session (ErrBusy when one runs or the session is being removed;
// ErrNoSession when it was removed since the caller looked it up) and runs fn in the
// background, telling subscribers when it starts and ends. A removal checks for a running turn
// before it marks the session deleted, and a turn registers before it checks for that mark, so
// one of the two always sees the other.
func (s *Service) begin(sessionID, source string, fn func(context.Context) (harness.TurnResult, error)) (*turnRun, error) {
	r := newTurnRun(sessionID, source)
	if err := s.beginRun(r, fn); err != nil {
		return nil, err
	}
	return r, nil
}

// newTurnRun returns a turn not started yet.
func newTurnRun(sessionID, source string) *turnRun {
	return &turnRun{id: "turn-" + harness.NewID()[:12], session: sessionID, source: source, done: make(chan struct{})}
}

// beginRun starts r (see begin); a queued prompt's turn was made, and waited for, before.
func (s *Service) beginRun(r *turnRun, fn func(context.Context) (harness.TurnResult, error)) error {
	ctx, stop := context.WithCancelCause(s.ctx)
	cancel := func() { stop(nil) }
	sessionID := r.session
	s.mu.Lock()
	if s.running[sessionID] != nil || s.removing[sessionID] {
		s.mu.Unlock()
		cancel()
		return api.ErrBusy
	}
	r.cancel, r.stop = cancel, stop
	s.running[sessionID], s.turns[r.id] = r, r
	s.mu.Unlock()
	if _, err := s.h.Session(sessionID); err != nil { // removed since the caller looked it up
		s.mu.Lock()
		delete(s.running, sessionID)
		delete(s.turns, r.id)
		s.mu.Unlock()
		cancel()
		return err
	}
	s.h.Publish(harness.Notice{Session: sessionID, Turn: &harness.TurnNotice{ID: r.id, Source: r.source, Running: true}})
	go s.run(ctx, r, fn)
	return nil
}

// run runs a turn to its end and records the outcome.
func (s *Service) run(ctx context.Context, r *turnRun, fn func(context.Context) (harness.TurnResult, error)) {
	before, _ := s.outages()
	res, err := fn(ctx)
	res.Response, res.Failure = s.h.Redact(res.Response), s.h.Redact(res.Failure) // whatever the executor
	r.cancel()
	s.queueMu.Lock() // a prompt queued from here on waits for the next turn of the queue
	defer s.queueMu.Unlock()
	s.finish(r, res, err)
	n := &harness.TurnNotice{ID: r.id, Source: r.source, Result: &res}
	if err != nil {
		n.Error, n.ErrorCode = s.h.Redact(err.Error()), api.ErrorCode(err)
	}
	s.h.Publish(harness.Notice{Session: r.session, Turn: n})
	if after, up := s.outages(); after > before || !up {
		s.checkCut(r.session) // the store went away during the turn: its end may not be recorded
	}
	s.next(r.session, res, err)
}

// finish records the end of a turn (or of a queued prompt that never started one) for WaitTurn.
func (s *Service) finish(r *turnRun, res harness.TurnResult, err error) {
	r.res, r.err = res, err
	s.mu.Lock()
	if s.running[r.session] == r {
		delete(s.running, r.session)
	}
	s.turns[r.id] = r
	if r.cancel != nil { // it ran: a prompt taken back is no session's last turn
		s.last[r.session] = r
	}
	s.order = append(s.order, r)
	s.kept += resultBytes(r)
	for len(s.order) > keepFinished || (len(s.order) > keepFinishedMin && s.kept > keepFinishedBytes) {
		old := s.order[0]
		s.order[0] = nil
		s.order = s.order[1:]
		s.kept -= resultBytes(old)
		if s.turns[old.id] == old {
			delete(s.turns, old.id)
		}
		if s.last[old.session] == old {
			delete(s.last, old.session)
		}
	}
	s.mu.Unlock()
	close(r.done)
}

// runningTurn returns the turn running on a session, or nil.
func (s *Service) runningTurn(sessionID string) *turnRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running[sessionID]
}

// WaitTurn waits for a turn to end and returns its result.
func (s *Service) WaitTurn(ctx context.Context, sessionID, turnID string) (harness.TurnResult, error) {
	s.mu.Lock()
	var r *turnRun
	if turnID != "" {
		r = s.turns[turnID]
	} else if se, err := s.session(sessionID); err == nil {
		if r = s.running[se.ID]; r == nil {
			r = s.last[se.ID]
		}
	}
	s.mu.Unlock()
	if r == nil {
		return harness.TurnResult{}, fmt.Errorf("%w: no such turn", api.ErrNotFound)
	}
	select {
	case <-r.done:
		return r.res, r.err
	case <-ctx.Done():
		return harness.TurnResult{}, ctx.Err()
	}
}

// CancelTurn stops the turn running on a session and waits until it has recorded its end.
func (s *Service) CancelTurn(ctx context.Context, sessionID string) error {
	se, err := s.session(sessionID)
	if err != nil {
		return err
	}
	r := s.runningTurn(se.ID)
	if r == nil {
		return nil
	}
	r.cancel()
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Approve records the first answer to an approval request; later ones get ErrResolved.
func (s *Service) Approve(ctx context.Context, sessionID, callID, decision string) error {
	switch decision {
	case executor.DecisionOnce, executor.DecisionAlways, executor.DecisionDeny:
	default:
		return invalidf("decision %q: give once, always or deny", decision)
	}
	se, err := s.session(sessionID)
	if err != nil {
		return err
	}
	s.approve.Lock()
	defer s.approve.Unlock()
	st, err := s.h.BranchState(se.Branch)
	if err != nil {
		return err
	}
	if !slices.Contains(st.Approvals, callID) {
		return api.ErrResolved
	}
	_, err = s.h.AppendOn(se.ID, se.Branch, harness.MustRecord(harness.TypeApprovalResolved, harness.ActorUser,
		harness.ApprovalResolved{CallID: callID, Decision: decision}))
	return err
}

// Compact compacts a session's prompt view now.
func (s *Service) Compact(ctx context.Context, sessionID string) (executor.CompactionReport, error) {
	se, err := s.session(sessionID)
	if err != nil {
		return executor.CompactionReport{}, err
	}
	return s.x.Compact(ctx, se.ID)
}

// isBusy reports whether err says a turn already runs.
func isBusy(err error) bool { return errors.Is(err, api.ErrBusy) }

// turnFunc returns what runs the turn: exo's executor, or the external executor the request or
// the session's log names (opened once per name and tool mode, kept for later turns).
func (s *Service) turnFunc(sessionID string, req api.TurnRequest, source string, to executor.TurnOptions) (func(context.Context) (harness.TurnResult, error), error) {
	name := executors.ForSession(s.h, sessionID, req.Executor)
	if req.ExecutorMode != "" && !executors.IsACP(name) {
		return nil, invalid(fmt.Errorf("--executor-mode applies to ACP agents (acp:COMMAND), and this turn runs with %s", name))
	}
	if name == executors.Default || name == "" {
		return func(ctx context.Context) (harness.TurnResult, error) {
			if err := s.backToDefault(sessionID); err != nil {
				return harness.TurnResult{SessionID: sessionID}, err
			}
			s.stopAgents(sessionID) // its agent of an external executor is not left running
			return s.x.PromptWith(ctx, sessionID, req.Text, source, to)
		}, nil
	}
	native := s.nativeTools(sessionID, name, req)
	mode := s.executorMode(sessionID, name, req)
	key := fmt.Sprintf("%s native=%v headless=%v yes=%v approval=%s unconfined=%v mode=%q", name, native, to.Headless, to.AutoApprove, to.Approval, req.AllowUnconfined, mode)
	s.runMu.Lock()
	defer s.runMu.Unlock()
	r := s.runners[key]
	if r == nil {
		xo := s.xo
		xo.Headless, xo.AutoApprove, xo.Approval = to.Headless, to.AutoApprove, to.Approval
		var err error
		if r, err = executors.Open(s.h, name, executors.Options{Exec: xo, NativeTools: native, AllowUnconfined: req.AllowUnconfined, Mode: mode}); err != nil {
			return nil, invalid(err)
		}
		s.runners[key] = r
	}
	others := s.otherRunners(key)
	return func(ctx context.Context) (harness.TurnResult, error) {
		for _, o := range others { // the session's agent of another executor or mode is not left running
			_ = o.StopSession(sessionID)
		}
		return r.Prompt(ctx, sessionID, req.Text, source)
	}, nil
}

// otherRunners are the external executors opened so far but the one under key ("": all of
// them; runMu held).
func (s *Service) otherRunners(key string) []executors.Runner {
	var out []executors.Runner
	for k, r := range s.runners {
		if k != key {
			out = append(out, r)
		}
	}
	return out
}

// stopAgents stops every agent process kept for a session between turns.
func (s *Service) stopAgents(sessionID string) {
	s.runMu.Lock()
	all := s.otherRunners("")
	s.runMu.Unlock()
	for _, r := range all {
		_ = r.StopSession(sessionID)
	}
}

// nativeTools says whether executor name runs a turn with its own tools: as the request asks,
// or, when the request names no executor, as the session's executor was selected (native mode
// is a setting of the session, kept until an executor is selected again).
func (s *Service) nativeTools(sessionID, name string, req api.TurnRequest) bool {
	if req.NativeTools || req.Executor != "" {
		return req.NativeTools
	}
	st, err := s.h.State(sessionID)
	return err == nil && st.Executor == name && st.ExecutorNative
}

// executorMode is the agent mode a turn runs in: the request's, else the one the user chose
// before for the session's agent (a setting of the session, kept until another executor is
// selected), else none (exo picks).
func (s *Service) executorMode(sessionID, name string, req api.TurnRequest) string {
	if req.ExecutorMode != "" {
		return req.ExecutorMode
	}
	if st, err := s.h.State(sessionID); err == nil && st.Executor == name {
		return st.ExecutorMode
	}
	return ""
}

// SelectExecutor records executor.selected for name when it can run here and is not the one in
// force; the session's next turn runs with it.
func (s *Service) SelectExecutor(ctx context.Context, sessionID, name string) (executors.Info, error) {
	se, err := s.session(sessionID)
	if err != nil {
		return executors.Info{}, err
	}
	name, native, err := executors.ParseChoice(name)
	if err != nil {
		return executors.Info{Name: name}, invalid(err)
	}
	in, err := executors.Check(name)
	if err != nil {
		return in, invalid(err)
	}
	in.NativeTools = native
	st, err := s.h.State(se.ID)
	if err != nil {
		return in, err
	}
	if st.Executor == in.Name && st.ExecutorNative == native || (st.Executor == "" && in.Name == executors.Default) {
		return in, nil
	}
	if s.runningTurn(se.ID) != nil {
		return in, fmt.Errorf("%w: a turn runs on the session; the executor changes between turns", api.ErrBusy)
	}
	_, err = s.h.Append(se.ID, harness.MustRecord(harness.TypeExecutorSelected, harness.ActorUser,
		harness.ExecutorSelected{Name: in.Name, Version: in.Version, Binary: in.Binary, NativeTools: native}))
	return in, err
}

// backToDefault records executor.selected when a session that ran another executor comes
// back to exo's own.
func (s *Service) backToDefault(sessionID string) error {
	st, err := s.h.State(sessionID)
	if err != nil || st.Executor == "" || st.Executor == executors.Default {
		return err
	}
	_, err = s.h.Append(sessionID, harness.MustRecord(harness.TypeExecutorSelected, harness.ActorUser,
		harness.ExecutorSelected{Name: executors.Default}))
	return err
}

// executorTurnOptions are the options of exo's executor for a turn req asks for.
func executorTurnOptions(req api.TurnRequest, mode string) executor.TurnOptions {
	return executor.TurnOptions{MaxSteps: req.MaxSteps, AutoApprove: req.AutoApprove, Headless: req.Headless, Approval: mode}
}

// refuseImages refuses at once a prompt mentioning images when exo's own executor would run it
// on a model that takes none (the executor refuses it too, later; an agent's runner decides
// for the agent): the client keeps the prompt, and nothing is recorded.
func (s *Service) refuseImages(se *harness.Session, req api.TurnRequest) error {
	if name := executors.ForSession(s.h, se.ID, req.Executor); name != executors.Default && name != "" {
		return nil
	}
	paths, err := s.h.ImageMentions(se.ID, req.Text)
	if err != nil || len(paths) == 0 {
		return nil
	}
	spec, err := s.h.Model(se.Settings["model"])
	if err != nil {
		return nil
	}
	if ok, why := provider.ImageInput(spec.Provider, spec.ModelID); !ok {
		return invalid(&executor.ImagesRefused{Paths: paths, Why: why})
	}
	return nil
}
