package service

import (
	"context"
	"errors"
	"maps"
	"sync"

	"exo/harness"
	"exo/harness/api"
	"exo/store"
)

// backlogChunk is how many committed events one backlog notice carries.
const backlogChunk = 512

// subscriberBuffer is how many merged notices wait in a watch's channel; how far it may fall
// behind before it is told it lagged is counted in bytes by the harness's broker. Kept small,
// so a client that reads nothing holds little (with 8,192, twenty such watchers held 1.1 GB).
const subscriberBuffer = 16

// Watch streams notices. With a session it is a tail: that session's committed events after
// After (on its current branch), then its live notices, without gaps or duplicates even across
// lag and rewinds; without one, every session's live notices.
func (s *Service) Watch(ctx context.Context, req api.WatchRequest) (*api.Watcher, error) {
	var t *tail
	live := false // the watch follows the branch the session's turns stream on
	if req.Session != "" {
		se, err := s.Session(ctx, req.Session) // another daemon's session is followed read-only
		if err != nil {
			return nil, err
		}
		t = &tail{h: s.h, session: se.ID, resolve: func() (*harness.Session, error) { return s.Session(ctx, se.ID) }}
		live = req.Branch == "" || req.Branch == se.Branch
		if err := t.start(se, req.Branch, req.After); err != nil {
			return nil, err
		}
	}
	id := "w-" + harness.NewID()[:12]
	var src <-chan harness.Notice
	var stop func()
	switch {
	case live:
		src, stop = s.h.SubscribeSession(subscriberBuffer, t.session) // the answer so far comes first
	case t == nil && req.Attach != "":
		// an app's watch of every session: the answer streaming on the one it shows comes first
		src, stop = s.h.SubscribeSession(subscriberBuffer, s.sessionID(req.Attach))
	default:
		src, stop = s.h.Subscribe(subscriberBuffer)
	}
	s.mu.Lock()
	s.watchSubs[id] = src
	s.mu.Unlock()
	out := make(chan harness.Notice, subscriberBuffer)
	wctx, cancel := context.WithCancel(ctx)
	var errMu sync.Mutex
	var werr error
	s.setAttach(id, req.Attach)
	go func() {
		defer close(out)
		defer stop()
		defer s.detach(id)
		send := func(n harness.Notice) bool {
			select {
			case out <- n:
				return true
			case <-wctx.Done():
				return false
			}
		}
		if t != nil {
			if err := s.untilReachable(wctx, func() error { return t.fill(send) }); err != nil {
				errMu.Lock()
				werr = err
				errMu.Unlock()
				return
			}
		}
		for {
			select {
			case <-wctx.Done():
				return
			case n, ok := <-src:
				if !ok {
					return
				}
				if n.Peer == settlePeer { // the service's own marker (settleConflicts)
					continue
				}
				if t != nil {
					err := t.forward(n, send)
					if errors.Is(err, store.ErrUnreachable) { // read what is missing once the store is back
						err = s.untilReachable(wctx, func() error {
							if err := t.follow(); err != nil {
								return err
							}
							return t.fill(send)
						})
					}
					if err != nil {
						errMu.Lock()
						werr = err
						errMu.Unlock()
						return
					}
				} else if !send(n) {
					return
				}
			}
		}
	}()
	errFn := func() error { errMu.Lock(); defer errMu.Unlock(); return werr }
	return api.NewWatcher(id, out, errFn, cancel), nil
}

// sessionID returns the id of a session named by id or name ("" when there is none).
func (s *Service) sessionID(ref string) string {
	se, err := s.session(ref)
	if err != nil {
		return ""
	}
	return se.ID
}

// untilReachable runs fn, and again each time the store comes back while it fails because the
// store did not answer: a tail outlives an outage of a shared store. It ends with ctx.
func (s *Service) untilReachable(ctx context.Context, fn func() error) error {
	for {
		err := fn()
		if !errors.Is(err, store.ErrUnreachable) {
			return err
		}
		r, changed := s.h.Store().Reachability()
		for !r.Up {
			select {
			case <-ctx.Done():
				return nil
			case <-changed:
			}
			r, changed = s.h.Store().Reachability()
		}
	}
}

// tail follows one session's branch by seq: this daemon's, or another daemon's on a shared
// store (whose events reach it through the peer watch's notices).
type tail struct {
	h       *harness.Harness
	session string
	// resolve reads the session's record again (after a rewind moved it).
	resolve func() (*harness.Session, error)
	branch  string
	last    uint64 // the last seq delivered on branch
}

// start positions the tail after seq `after` of branch (the session's current one by default).
func (t *tail) start(se *harness.Session, branch string, after uint64) error {
	t.branch, t.last = se.Branch, after
	if branch != "" && branch != se.Branch {
		common, err := t.h.CommonHistory(branch, se.Branch)
		if err != nil {
			return err
		}
		t.last = min(after, common)
	}
	return nil
}

// fill sends the committed events after t.last up to the head, in chunks.
func (t *tail) fill(send func(harness.Notice) bool) error {
	for {
		evs, err := t.h.BranchEvents(t.branch, t.last+1, t.last+backlogChunk)
		if err != nil || len(evs) == 0 {
			return err
		}
		t.last = evs[len(evs)-1].Seq
		if !send(harness.Notice{Session: t.session, Events: evs}) {
			return nil
		}
		if len(evs) < backlogChunk {
			return nil
		}
	}
}

// follow moves the tail to the session's current branch after a rewind: what the reader saw
// of the common history stands, the rest comes again from the new branch.
func (t *tail) follow() error {
	se, err := t.resolve()
	if err != nil {
		return err
	}
	if se.Branch == t.branch {
		return nil
	}
	common, err := t.h.CommonHistory(t.branch, se.Branch)
	if err != nil {
		return err
	}
	t.branch, t.last = se.Branch, min(t.last, common)
	return nil
}

// forward passes one live notice on, its events cut to the ones not yet delivered; after a
// lag, a gap or a rewind it reads what is missing from the log.
func (t *tail) forward(n harness.Notice, send func(harness.Notice) bool) error {
	if n.Session != t.session {
		if n.Clients != nil {
			send(harness.Notice{Clients: n.Clients})
		}
		if n.Store != nil {
			send(harness.Notice{Store: n.Store})
		}
		if n.Peer != "" { // another daemon's session changed: clients refresh their siblings
			send(harness.Notice{Session: n.Session, Peer: n.Peer})
		}
		return nil
	}
	resync := n.Lagged
	var fresh []harness.Event
	for _, e := range n.Events {
		if e.Branch != t.branch || e.Seq > t.last+1 {
			resync = true // a rewind moved the session, or notices were lost: the log has it all
			break
		}
		if e.Seq > t.last {
			fresh = append(fresh, e)
			t.last = e.Seq
		}
	}
	n.Events, n.Lagged = fresh, false
	if len(n.Events) > 0 || n.Delta != "" || n.Reasoning != "" || len(n.Output) > 0 || n.Turn != nil || n.Progress != nil || n.Governance != nil || n.Updated != nil {
		if !send(n) {
			return nil
		}
	}
	if !resync {
		return nil
	}
	if err := t.follow(); err != nil {
		return err
	}
	return t.fill(send)
}

// setAttach records which session a watch counts as a client of and tells subscribers. A
// session someone looks at gets its first snapshot taken now, while the user types.
func (s *Service) setAttach(watchID, sessionID string) {
	if sessionID != "" {
		s.prepare(sessionID)
	}
	s.mu.Lock()
	old := s.watches[watchID]
	s.watches[watchID] = sessionID
	if old == sessionID { // the same, or a new watch of no session: no count changed
		s.mu.Unlock()
		return
	}
	counts := s.clientCounts()
	s.mu.Unlock()
	s.h.Publish(harness.Notice{Clients: counts})
}

// detach forgets a watch.
func (s *Service) detach(watchID string) {
	s.mu.Lock()
	old := s.watches[watchID]
	delete(s.watches, watchID)
	delete(s.watchSubs, watchID)
	if old == "" { // a watch of no session counted nowhere: telling every subscriber costs N² for N watches
		s.mu.Unlock()
		return
	}
	counts := s.clientCounts()
	s.mu.Unlock()
	s.h.Publish(harness.Notice{Clients: counts})
}

// clientCounts counts attached watches per session; s.mu must be held.
func (s *Service) clientCounts() map[string]int {
	out := map[string]int{}
	for _, id := range s.watches {
		if id != "" {
			out[id]++
		}
	}
	return out
}

// Attach counts a watch as a client of a session ("" detaches it).
func (s *Service) Attach(ctx context.Context, watchID, sessionID string) error {
	if sessionID != "" {
		se, err := s.Session(ctx, sessionID) // another daemon's session may be watched too
		if err != nil {
			return err
		}
		sessionID = se.ID
	}
	s.mu.Lock()
	_, ok := s.watches[watchID]
	sub := s.watchSubs[watchID]
	s.mu.Unlock()
	if !ok {
		return invalidf("no watch %q", watchID)
	}
	s.setAttach(watchID, sessionID)
	if sessionID != "" && sub != nil {
		s.h.ReplayAnswer(sub, sessionID) // the answer streaming there, from its start
	}
	return nil
}

// Watchers counts the open watch and tail streams: clients that follow the harness.
func (s *Service) Watchers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.watches)
}

// Activity reports running turns, watchers and background work.
func (s *Service) Activity(ctx context.Context) (api.Activity, error) {
	a := s.activity()
	a.Tasks = s.h.RunningTasks()
	a.Agents = s.agents()
	a.Daemon = s.opts.Daemon
	if s.h.Store().Node() != "" {
		r, _ := s.h.Store().Reachability()
		a.Store = storeState(r)
	}
	return a, nil
}

// activity snapshots running turns and client counts.
func (s *Service) activity() api.Activity {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := api.Activity{Running: map[string]string{}, Clients: s.clientCounts(), Watchers: len(s.watches)}
	for id, r := range s.running {
		a.Running[id] = r.id
	}
	a.Clients = maps.Clone(a.Clients)
	return a
}

// prepare starts a session's first workspace snapshot in the background, if it has a workspace.
func (s *Service) prepare(sessionID string) {
	if se, err := s.h.Session(sessionID); err == nil && se.Workspace != "" {
		s.h.PrepareBaseline(se.ID)
	}
}
