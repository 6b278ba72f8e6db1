package service

import (
	"exo/harness"
	"exo/harness/api"
)

// governanceLoop tells the watchers when a session's governance summary (drift, conflicts)
// changes: after each batch of a local session's committed events, while anything watches, it
// brings the session's governance state up to date and publishes the summary when it differs
// from the one last published. Clients fold it into their siblings list instead of listing
// every session again after each batch.
func (s *Service) governanceLoop() {
	defer s.wg.Done()
	ch, stop := s.h.SubscribeChanges(subscriberBuffer)
	defer stop()
	last := map[string]api.GovernanceSummary{}
	for {
		select {
		case <-s.ctx.Done():
			return
		case n, ok := <-ch:
			if !ok {
				return
			}
			if len(n.Events) == 0 || n.Peer != "" || n.Session == "" {
				continue
			}
			if !s.watched() {
				clear(last) // a new watcher lists the sessions, their summaries with them
				continue
			}
			gs, err := s.tracker.State(n.Session)
			if err != nil {
				continue // a session removed meanwhile: nothing to tell
			}
			sum := api.GovernanceSummary{Drift: gs.Drift().Total, Conflicts: len(gs.Conflicts)}
			if prev, seen := last[n.Session]; seen && prev == sum {
				continue
			}
			last[n.Session] = sum
			s.h.Publish(harness.Notice{Session: n.Session, Governance: &sum})
		}
	}
}

// watched reports whether any client watches the service's notices.
func (s *Service) watched() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.watches) > 0
}
