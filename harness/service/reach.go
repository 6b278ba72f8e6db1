package service

import (
	"errors"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/store"
)

// reachLoop follows, while the service runs on a shared store, whether the store answers: it
// logs when it stops answering and when it answers again, and once it is back it records, on
// this daemon's sessions no turn runs on, the turns the outage cut (see Harness.CloseCutTurn),
// so no turn is left without an end. Turns that end while the store is down, or that an outage
// cut short, are checked again (sent on s.cut).
func (s *Service) reachLoop() {
	defer s.wg.Done()
	st := s.h.Store()
	if st.Node() == "" {
		return
	}
	var logged, closed int // the outages logged, and those whose cut turns are closed
	var downAt time.Time
	pending := map[string]bool{} // sessions whose turn ended during, or across, an outage
	var retry <-chan time.Time
	wasUp, told := true, 0 // what clients were last told, and of how many outages
	for {
		r, changed := st.Reachability()
		// Clients show the outage while it lasts; one that was over between two looks is told
		// all the same, as a down and an up.
		missed := r.Up && wasUp && r.Outages > told
		if missed {
			s.h.Publish(harness.Notice{Store: &api.StoreState{Since: r.Since, Why: "unreachable for a moment"}})
		}
		if r.Up != wasUp || missed {
			s.h.Publish(harness.Notice{Store: storeState(r)})
		}
		wasUp, told = r.Up, r.Outages
		if !r.Up && r.Outages > logged {
			logged, downAt = r.Outages, r.Since
			s.log.Error("the store is unreachable: turns that need it fail until it answers again", "error", r.Err)
		}
		if r.Up && (r.Outages > closed || len(pending) > 0) {
			if r.Outages > logged { // down and back between two looks
				logged, downAt = r.Outages, time.Time{}
				s.log.Error("the store was unreachable for a moment")
			}
			if r.Outages > closed && !downAt.IsZero() {
				s.log.Info("the store answers again", "unreachable_for", r.Since.Sub(downAt).Round(time.Millisecond))
			}
			if s.closeCut(pending, r.Outages > closed) {
				closed, retry = r.Outages, nil
			} else {
				retry = time.After(time.Second)
			}
		}
		select {
		case <-s.ctx.Done():
			return
		case id := <-s.cut:
			pending[id] = true
		case <-changed:
		case <-retry:
			retry = nil
		}
	}
}

// closeCut closes the turns an outage cut: on the pending sessions, or on every session of
// this daemon when all is set, leaving those a turn runs on. It reports whether every one
// was checked (else it runs again).
func (s *Service) closeCut(pending map[string]bool, all bool) bool {
	ids := make([]string, 0, len(pending))
	for id := range pending {
		ids = append(ids, id)
	}
	if all {
		list, err := s.h.Sessions()
		if err != nil {
			s.log.Warn("turns the store's outage cut: sessions not listed", "error", err)
			return false
		}
		for _, se := range list {
			if !pending[se.ID] {
				ids = append(ids, se.ID)
			}
		}
	}
	ok := true
	for _, id := range ids {
		if s.runningTurn(id) != nil {
			delete(pending, id) // its turn goes on: it ends it itself
			continue
		}
		closed, err := s.h.CloseCutTurn(id)
		switch {
		case err != nil && s.h.Store().Node() != "" && isUnreachable(err):
			ok = false
			continue
		case err != nil:
			s.log.Warn("turn the store's outage cut: not closed", "session", id, "error", err)
		case closed:
			s.log.Warn("turn cut by the store's outage recorded as interrupted", "session", id)
			s.h.Publish(harness.Notice{Session: id})
		}
		delete(pending, id)
	}
	return ok
}

// isUnreachable reports whether err says the store did not answer.
func isUnreachable(err error) bool { return errors.Is(err, store.ErrUnreachable) }

// outages counts the store's outages so far (0 on a local store), and says whether it is up.
func (s *Service) outages() (int, bool) {
	r, _ := s.h.Store().Reachability()
	return r.Outages, r.Up
}

// checkCut asks the reach loop to close a session's turn if an outage cut it.
func (s *Service) checkCut(id string) {
	select {
	case s.cut <- id:
	default: // the loop is busy with as many: the next outage's sweep covers it
	}
}

// storeState is the store's reachability as clients are told it.
func storeState(r store.Reachability) *api.StoreState {
	st := &api.StoreState{Up: r.Up, Since: r.Since}
	if !r.Up && r.Err != nil {
		st.Why = r.Err.Error()
	}
	return st
}
