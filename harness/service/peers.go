package service

import (
	"context"
	"slices"
	"time"

	"exo/harness"
	"exo/harness/api"
)

// Backoff of the peer watch after it failed to start.
const (
	peerRetryMin = 100 * time.Millisecond
	peerRetryMax = 30 * time.Second
)

// peerLoop publishes, while the service runs, what other daemons sharing the store do (see
// harness.WatchPeers). When the watch cannot start (the cluster did not answer) it tries
// again with backoff, so live updates resume after a hiccup; on a local store it ends at once.
func (s *Service) peerLoop() {
	defer s.wg.Done()
	if s.h.Store().Node() == "" {
		return
	}
	warn := func(err error) { s.log.Warn("other daemons' sessions: skipped", "problem", err) }
	wait := peerRetryMin
	for {
		start := time.Now()
		err := s.h.WatchPeers(s.ctx, warn)
		if s.ctx.Err() != nil {
			return
		}
		if time.Since(start) > peerRetryMax {
			wait = peerRetryMin
		}
		s.log.Warn("watching other daemons' sessions failed; trying again", "in", wait, "error", err)
		select {
		case <-s.ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, peerRetryMax)
	}
}

// peerConflictLoop records, while the service runs on a shared store, the conflicts another
// daemon's sessions make with this daemon's: when a peer session records a workspace snapshot
// (its changed files), or is announced without events (made, changed, or found when the peer
// watch starts: its snapshots while this daemon did not watch come with no notice of their
// own), conflicts are detected again and recorded on this daemon's sessions (the other daemon
// records them on its own). Notices already queued are taken in with the one that asks, so a
// burst (every peer session announced at once) records once. A settle marker (see
// settleConflicts) is answered once what came before it is recorded.
func (s *Service) peerConflictLoop() {
	defer s.wg.Done()
	if s.h.Store().Node() == "" {
		return
	}
	ch, stop := s.h.SubscribeChanges(256)
	defer stop()
	var marks []string
	settled := func() {
		for _, id := range marks {
			if done, ok := s.settling.LoadAndDelete(id); ok {
				close(done.(chan struct{}))
			}
		}
		marks = marks[:0]
	}
	for {
		select {
		case <-s.ctx.Done():
			return
		case n, ok := <-ch:
			if !ok {
				return
			}
			if n.Peer == settlePeer {
				marks = append(marks, n.Session)
			}
			if !conflictsMayChange(n) {
				settled()
				continue
			}
			for queued := true; queued; {
				select {
				case q, ok := <-ch:
					queued = ok
					if ok && q.Peer == settlePeer {
						marks = append(marks, q.Session)
					}
				default:
					queued = false
				}
			}
			if _, err := s.tracker.RecordConflicts(); err != nil {
				s.log.Warn("conflicts with other daemons' sessions: not recorded", "error", err)
			}
			settled()
		}
	}
}

// settlePeer marks the notices settleConflicts publishes; no client is sent one.
const settlePeer = "\x00settle"

// settleConflicts returns once the conflicts that every notice published before it may bring
// are recorded (the peer conflict loop runs asynchronously, reading the shared store): what is
// measured after it is not what came before. It returns at once on a local store.
func (s *Service) settleConflicts(ctx context.Context) error {
	if s.h.Store().Node() == "" {
		return nil
	}
	id := "settle-" + harness.NewID()
	done := make(chan struct{})
	s.settling.Store(id, done)
	defer s.settling.Delete(id)
	s.h.Publish(harness.Notice{Session: id, Peer: settlePeer})
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.ctx.Done():
		return s.ctx.Err()
	}
}

// conflictsMayChange reports whether a notice may bring a conflict with another daemon's
// session: one of its snapshots, a peer session announced without events, or missed notices.
func conflictsMayChange(n harness.Notice) bool {
	return n.Lagged || n.Peer != "" && n.Peer != settlePeer && (len(n.Events) == 0 || changedFiles(n.Events))
}

// changedFiles reports whether events include a workspace snapshot.
func changedFiles(evs []harness.Event) bool {
	return slices.ContainsFunc(evs, func(e harness.Event) bool { return e.Type == harness.TypeWorkspaceSnapshot })
}

// withPeers appends the sessions other daemons run on a shared store to a session list, with
// their state projected from the shared log (status, head, usage, drift and conflicts). A peer
// session that cannot be read is left out with a log line, and when the other daemons'
// sessions cannot be listed at all the local ones are still returned.
func (s *Service) withPeers(out []api.SessionInfo) []api.SessionInfo {
	peers, skipped, err := s.h.PeerSessions()
	if err != nil {
		s.log.Warn("sessions of other daemons: not listed", "error", err)
		return out
	}
	for _, err := range skipped {
		s.log.Warn("sessions of other daemons: skipped", "problem", err)
	}
	for _, p := range peers {
		st, err := s.h.BranchState(p.Session.Branch)
		if err != nil {
			s.log.Warn("sessions of other daemons: skipped", "session", p.Session.ID, "node", p.Node, "error", err)
			continue
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
	return out
}
