package service

import (
	"context"
	"fmt"

	"exo/harness"
	"exo/harness/api"
)

// queuedTurn is a prompt queued while a turn ran: the request that sent it, and the turn it
// starts (registered at once, so that WaitTurn can wait for it).
type queuedTurn struct {
	req api.TurnRequest
	run *turnRun
}

// enqueue records req as a queued prompt (prompt.queued) when a turn runs on the session; ok is
// false when none runs (the caller starts the turn).
func (s *Service) enqueue(se *harness.Session, req api.TurnRequest, source string) (api.TurnStarted, bool, error) {
	s.queueMu.Lock()
	defer s.queueMu.Unlock()
	if s.runningTurn(se.ID) == nil {
		return api.TurnStarted{}, false, nil
	}
	r := newTurnRun(se.ID, source)
	steer := req.WhenBusy == api.BusySteer
	evs, err := s.h.AppendOn(se.ID, se.Branch, harness.MustRecord(api.TypePromptQueued, harness.ActorUser,
		api.PromptQueued{ID: r.id, Text: req.Text, Source: source, Steer: steer}))
	if err != nil {
		return api.TurnStarted{}, true, fmt.Errorf("queue the prompt: %w", err)
	}
	req.Source = source
	s.mu.Lock()
	s.turns[r.id] = r
	s.mu.Unlock()
	s.queued[r.id] = &queuedTurn{req: req, run: r}
	return api.TurnStarted{ID: r.id, Session: se.ID, Branch: se.Branch, Seq: evs[0].Seq - 1, Queued: true, Steer: steer}, true, nil
}

// Unqueue takes back a prompt queued while a turn runs: prompt.unqueued (cancelled); its turn
// ends as cancelled for whoever waits for it. ErrNotFound once it was sent or steered.
func (s *Service) Unqueue(ctx context.Context, sessionID, promptID string) error {
	se, err := s.session(sessionID)
	if err != nil {
		return err
	}
	s.queueMu.Lock()
	defer s.queueMu.Unlock()
	ok, err := s.x.Unqueue(se.ID, se.Branch, promptID, api.UnqueueCancelled)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: no prompt %s is queued on %s (sent already?)", api.ErrNotFound, promptID, se.Name)
	}
	s.settleQueued(promptID, harness.TurnResult{SessionID: se.ID, Cancelled: true, StopReason: "unqueued"}, nil)
	return nil
}

// settleQueued ends the wait for a queued prompt that starts no turn of its own (queueMu held).
func (s *Service) settleQueued(id string, res harness.TurnResult, err error) {
	q := s.queued[id]
	if q == nil {
		return
	}
	delete(s.queued, id)
	s.finish(q.run, res, err)
}

// next runs when a turn of a session ended (queueMu held): the prompts it took to steer end
// with its result; then the oldest queued prompt starts the next turn, unless the user
// cancelled this one or the service closes, which drops the queue (prompt.unqueued, dropped).
func (s *Service) next(sessionID string, res harness.TurnResult, err error) {
	se, serr := s.h.Session(sessionID)
	var st *api.SessionState
	if serr == nil {
		st, serr = s.h.BranchState(se.Branch)
	}
	queued := map[string]bool{}
	if serr == nil {
		for _, q := range st.Queued {
			queued[q.ID] = true
		}
	}
	for id, q := range s.queued {
		if q.run.session == sessionID && !queued[id] { // steered into the turn that ended
			s.settleQueued(id, res, err)
		}
	}
	if serr != nil || len(st.Queued) == 0 {
		return
	}
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if (res.Cancelled && !res.StepLimit) || closing || s.ctx.Err() != nil {
		for _, q := range st.Queued {
			if _, uerr := s.x.Unqueue(se.ID, se.Branch, q.ID, api.UnqueueDropped); uerr != nil {
				s.log.Warn("drop a queued prompt", "session", se.ID, "prompt", q.ID, "err", uerr)
			}
			s.settleQueued(q.ID, harness.TurnResult{SessionID: se.ID, Cancelled: true, StopReason: "cancelled"}, nil)
		}
		return
	}
	for _, q := range st.Queued {
		if s.sendQueued(se, q) {
			return
		}
	}
}

// sendQueued takes a queued prompt out of the queue (prompt.unqueued, sent) and starts the turn
// it waited for; false when it could not start (its wait ends with the error), so the next one
// is tried.
func (s *Service) sendQueued(se *harness.Session, q api.QueuedPrompt) bool {
	qt := s.queued[q.ID]
	if qt == nil { // queued by an earlier daemon: its text and source are in the log
		qt = &queuedTurn{req: api.TurnRequest{Session: se.ID, Text: q.Text, Source: q.Source}, run: newTurnRun(se.ID, q.Source)}
		qt.run.id = q.ID
		s.queued[q.ID] = qt
	}
	if _, err := s.x.Unqueue(se.ID, se.Branch, q.ID, api.UnqueueSent); err != nil {
		s.settleQueued(q.ID, harness.TurnResult{SessionID: se.ID}, err)
		return false
	}
	delete(s.queued, q.ID)
	req := qt.req
	mode, err := s.approvalMode(se, req.Approval)
	if err == nil {
		to := executorTurnOptions(req, mode)
		var fn func(context.Context) (harness.TurnResult, error)
		if fn, err = s.turnFunc(se.ID, req, qt.run.source, to); err == nil {
			err = s.beginRun(qt.run, fn)
		}
	}
	if err != nil {
		s.queued[q.ID] = qt
		s.settleQueued(q.ID, harness.TurnResult{SessionID: se.ID, Failure: err.Error()}, err)
		return false
	}
	return true
}
