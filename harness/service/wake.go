package service

import (
	"context"
	"time"

	"exo/harness"
	"exo/harness/config"
	"exo/harness/executor"
	"exo/harness/executors"
)

// wakePoll is how often pending wake-ups are checked while some wait (never when none does).
const wakePoll = 50 * time.Millisecond

// wakeLoop wakes idle sessions: when a background task or subagent of a session ends while the
// harness runs and the model has not seen it, a follow-up turn starts as soon as no turn runs
// on that session, so the agent reacts to the completion. Completions recorded before the
// service started do not wake anyone: opening a session never spends tokens by itself.
func (s *Service) wakeLoop() {
	defer s.wg.Done()
	ch, stop := s.h.SubscribeChanges(1024)
	defer stop()
	pending := map[string]bool{}
	for {
		var tick <-chan time.Time
		if len(pending) > 0 {
			tick = time.After(wakePoll)
		}
		select {
		case <-s.ctx.Done():
			return
		case n, ok := <-ch:
			if !ok {
				return
			}
			if n.Session != "" && n.Peer == "" && executor.HasCompletion(n.Events) {
				pending[n.Session] = true
			}
			if n.Turn == nil || n.Turn.Running {
				continue
			}
		case <-tick:
		}
		s.wakePending(pending)
	}
}

// wakePending starts follow-up turns for the pending sessions that are idle.
func (s *Service) wakePending(pending map[string]bool) {
	for id := range pending {
		if s.runningTurn(id) != nil {
			continue
		}
		if executors.ForSession(s.h, id, "") != executors.Default {
			// Wake-ups run exo's own executor; a session handed to an external agent is not
			// taken back behind the user's back (an ACP agent's terminals end as tasks too).
			delete(pending, id)
			continue
		}
		if !s.x.UnseenCompletion(id) {
			delete(pending, id)
			continue
		}
		mode := config.ApprovalAsk // a session whose mode cannot be read wakes up asking
		if se, err := s.session(id); err == nil {
			mode, _ = s.approvalMode(se, "")
		}
		_, err := s.begin(id, "wake", func(ctx context.Context) (harness.TurnResult, error) {
			return s.x.RunTurnWith(ctx, id, executor.TurnOptions{Approval: mode})
		})
		if err == nil || !isBusy(err) {
			delete(pending, id)
		}
	}
}
