package service

import (
	"fmt"

	"exo/harness"
	"exo/harness/api"
)

// peerLoop publishes, while the service runs, what other daemons sharing the store do (see
// harness.WatchPeers); on a local store it ends at once.
func (s *Service) peerLoop() {
	defer s.wg.Done()
	_ = s.h.WatchPeers(s.ctx)
}

// withPeers appends the sessions other daemons run on a shared store to a session list, with
// their state projected from the shared log (status, head, usage, drift and conflicts).
func (s *Service) withPeers(out []api.SessionInfo) ([]api.SessionInfo, error) {
	peers, err := s.h.PeerSessions()
	if err != nil {
		return out, fmt.Errorf("sessions of other daemons: %w", err)
	}
	for _, p := range peers {
		st, err := s.h.BranchState(p.Session.Branch)
		if err != nil {
			return out, fmt.Errorf("session %s of %s: %w", p.Session.Name, p.Node, err)
		}
		info := api.SessionInfo{Session: p.Session, Status: st.Status, Head: st.Head, Model: st.Model, Steps: st.Steps,
			Usage: st.Usage, Cost: st.Cost, Node: p.Node, Live: p.Live, Orphaned: p.Orphaned}
		info.Running = p.Live && st.Status == harness.StatusRunning
		if !p.Live && (st.Status == harness.StatusRunning || st.Status == harness.StatusWaiting) {
			info.Status = harness.StatusIdle
		}
		if gs, err := s.tracker.StateOf(p.Session); err == nil {
			info.Drift, info.Conflicts = gs.Drift().Total, len(gs.Conflicts)
		}
		out = append(out, info)
	}
	return out, nil
}
