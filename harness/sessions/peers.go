package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"exo/harness/api"
	"exo/harness/eventlog"
	"exo/store"
)

// PeerSession is a session another daemon runs on a shared (etcd) store: its events are in the
// shared log, its record is that daemon's.
type PeerSession struct {
	// Node is the daemon that runs (or ran) it.
	Node    string       `json:"node"`
	Session *api.Session `json:"session"`
	// Live is set while that daemon's lease holds the session's branch.
	Live bool `json:"live"`
	// Orphaned is set when no daemon holds it and its workspace is not reachable from this
	// machine, so it cannot be taken over here.
	Orphaned bool `json:"orphaned,omitempty"`
}

// PeerSessions lists the sessions other daemons run on a shared store, oldest first (none on
// a local store; removed ones left out, archived ones included and marked so), with who owns them read in one request. A record that cannot be read is
// skipped and named in skipped, so one bad record hides only itself.
func (sv *Directory) PeerSessions() (out []PeerSession, skipped []error, err error) {
	recs, err := sv.st.PeerRecords(store.Sessions)
	if err != nil || len(recs) == 0 {
		return nil, nil, err
	}
	owners, err := sv.st.Owners()
	if err != nil {
		return nil, nil, err
	}
	out = make([]PeerSession, 0, len(recs))
	for _, r := range recs {
		var s api.Session
		if err := json.Unmarshal(r.Value, &s); err != nil {
			skipped = append(skipped, fmt.Errorf("session record %s of daemon %s: %w", r.Key, r.Node, err))
			continue
		}
		if s.ID == "" || s.Branch == "" {
			skipped = append(skipped, fmt.Errorf("session record %s of daemon %s: no id or branch", r.Key, r.Node))
			continue
		}
		if s.Deleted {
			continue // exo session rm on its daemon: gone from every list
		}
		s.Node = r.Node
		p := PeerSession{Node: r.Node, Session: &s, Live: owners[s.Branch] != ""}
		p.Orphaned = !p.Live && !reachable(s.Workspace)
		out = append(out, p)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Session.Created.Before(out[j].Session.Created) })
	return out, skipped, nil
}

// reachable reports whether a workspace folder exists on this machine.
func reachable(dir string) bool {
	if dir == "" {
		return false
	}
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// ResolvePeer finds another daemon's session by id, name or unique id prefix (at least four
// characters), as Session does for this daemon's own.
func (sv *Directory) ResolvePeer(ref string) (*PeerSession, error) {
	peers, _, err := sv.PeerSessions()
	if err != nil {
		return nil, err
	}
	var matches []*PeerSession
	for i := range peers {
		p := &peers[i]
		if p.Session.ID == ref || p.Session.Name == ref {
			return p, nil
		}
		if len(ref) >= 4 && strings.HasPrefix(p.Session.ID, ref) {
			matches = append(matches, p)
		}
	}
	switch len(matches) {
	case 0:
		return nil, fmt.Errorf("session %q of another daemon: %w (see 'exo sessions')", ref, api.ErrNoSession)
	case 1:
		return matches[0], nil
	}
	return nil, fmt.Errorf("session %q matches %d sessions of other daemons: %w", ref, len(matches), api.ErrAmbiguous)
}

// TakeOver makes a session whose daemon died this daemon's (ref: its id, name or unique id
// prefix): it claims the session's branch (refused with ErrNotOwner while the other daemon's
// lease is alive), moves its record here, and closes a turn the dead daemon left running
// (recorded as interrupted). A session whose workspace is not reachable from this machine is
// refused as orphaned.
func (sv *Directory) TakeOver(ref string) (*api.Session, error) {
	p, err := sv.ResolvePeer(ref)
	if err != nil {
		return nil, fmt.Errorf("take over: %w", err)
	}
	s := p.Session
	if p.Orphaned {
		return nil, fmt.Errorf("take over %s (workspace %s): %w", s.Name, s.Workspace, api.ErrOrphaned)
	}
	if err := sv.st.Claim(s.Branch); err != nil {
		return nil, fmt.Errorf("take over %s: %w", s.Name, err)
	}
	if _, err := sv.st.Adopt(store.Sessions, p.Node, s.ID); err != nil {
		sv.st.Release(s.Branch)
		return nil, fmt.Errorf("take over %s: %w", s.Name, err)
	}
	s.Node = ""
	var recs []store.Record
	if sv.hooks.Interrupted != nil && sv.hooks.TakenOver != nil {
		recs, err = sv.hooks.Interrupted(s.Branch, sv.hooks.TakenOver(p.Node))
	}
	if err == nil && len(recs) > 0 {
		_, err = sv.log.AppendOn(s.ID, s.Branch, recs...)
	}
	if err != nil {
		return s, fmt.Errorf("take over %s: close its interrupted turn: %w", s.Name, err)
	}
	return s, nil
}

// WatchPeers publishes what other daemons on a shared store do to their sessions, until ctx
// ends: each batch of events appended to a peer session's branch arrives as a Notice with
// Peer set (and a session record change or a daemon leaving as one without events), so
// clients refresh their siblings. Once its watch has started it announces every peer session
// it listed (a Notice without events each): what other daemons did before then (while the
// cluster did not answer and the caller was trying again, or between a client's listing and
// this start) reaches clients too, not only what comes after. After a watch fell behind a
// compaction it reads every peer branch from the last seq it published, so nothing is missed.
// A peer record or branch that cannot be read is skipped and passed to warn. It returns at
// once on a local store, and with an error when it cannot start (the caller tries again).
func (sv *Directory) WatchPeers(ctx context.Context, warn func(error)) error {
	if sv.st.Node() == "" {
		return nil
	}
	rev, err := sv.st.Revision()
	if err != nil {
		return err
	}
	peers, skipped, err := sv.PeerSessions()
	if err != nil {
		return err
	}
	for _, err := range skipped {
		warn(err)
	}
	ch, err := sv.st.Watch(ctx, rev)
	if err != nil {
		return err
	}
	w := peerWatch{sv: sv, warn: warn, byBranch: map[string]*PeerSession{}, seen: map[string]uint64{}}
	for i := range peers {
		w.track(&peers[i])
	}
	for _, p := range peers { // after the watch's revision is set: a later change comes from the watch
		sv.log.Publish(api.Notice{Session: p.Session.ID, Peer: p.Node})
	}
	for c := range ch {
		w.apply(c)
	}
	return ctx.Err()
}

// peerWatch follows the peer sessions' branches.
type peerWatch struct {
	sv       *Directory
	warn     func(error)
	byBranch map[string]*PeerSession
	// seen maps a branch to the last seq published of it. A branch tracked but not in it has
	// published nothing yet: its next head move publishes all the watch carried of it.
	seen map[string]uint64
}

// track starts following a peer session from where the watch stands: every head move the
// watch delivers after this is published. No head is read here: a head read now could be
// ahead of the watch (an append committed after the change being applied, or after the
// watch's start revision, whose own change is still queued), and those moves, then at or
// below what was read, would be dropped, a peer's last events never reaching its followers.
func (w *peerWatch) track(p *PeerSession) {
	w.byBranch[p.Session.Branch] = p
}

// untrack stops following node's session id.
func (w *peerWatch) untrack(node, id string) {
	for br, p := range w.byBranch {
		if p.Node == node && p.Session.ID == id {
			delete(w.byBranch, br)
			delete(w.seen, br)
		}
	}
}

// apply handles one change.
func (w *peerWatch) apply(c store.Change) {
	self := w.sv.st.Node()
	switch c.Kind {
	case store.ChangeRecord:
		if c.Bucket != store.Sessions || c.Node == self {
			return
		}
		if c.Deleted { // moved to another daemon (a take-over), or reported gone by a re-list
			w.untrack(c.Node, c.Key)
			w.sv.log.Publish(api.Notice{Session: c.Key, Peer: c.Node})
			return
		}
		var s api.Session
		if err := json.Unmarshal(c.Value, &s); err != nil || s.Branch == "" {
			w.warn(fmt.Errorf("session record %s of daemon %s: unreadable: %v", c.Key, c.Node, err))
			return
		}
		if s.Deleted {
			w.untrack(c.Node, s.ID)
			w.sv.log.Publish(api.Notice{Session: s.ID, Peer: c.Node})
			return
		}
		w.track(&PeerSession{Node: c.Node, Session: &s, Live: true})
		w.sv.log.Publish(api.Notice{Session: s.ID, Peer: c.Node})
	case store.ChangeHead:
		p := w.byBranch[c.Branch]
		if p == nil {
			return
		}
		seen, known := w.seen[c.Branch]
		if known && c.Seq <= seen {
			return
		}
		evs := c.Events // what the watch carried: no read
		switch {
		case len(evs) > 0 && evs[len(evs)-1].Seq == c.Seq && (!known || evs[0].Seq <= seen+1):
		case known: // a re-list, or a gap: read what was missed, once, from the last seq published
			var err error
			if evs, err = w.sv.st.ReadRange(c.Branch, seen+1, c.Seq); err != nil { // read again from the same seq at its next move
				w.warn(fmt.Errorf("events of %s (daemon %s): %w", p.Session.Name, p.Node, err))
				return
			}
		default: // a re-list before anything was published: the head event, so followers see the gap and read
			var err error
			if evs, err = w.sv.st.ReadRange(c.Branch, c.Seq, c.Seq); err != nil {
				w.warn(fmt.Errorf("events of %s (daemon %s): %w", p.Session.Name, p.Node, err))
				return
			}
		}
		for known && len(evs) > 0 && evs[0].Seq <= seen {
			evs = evs[1:]
		}
		w.seen[c.Branch] = c.Seq
		w.sv.log.Publish(api.Notice{Session: p.Session.ID, Events: eventlog.EventsOf(evs), Peer: p.Node})
	case store.ChangeOwner: // claimed (its daemon is back, or took it over) or let go: it is live or gone
		if p := w.byBranch[c.Branch]; p != nil {
			w.sv.log.Publish(api.Notice{Session: p.Session.ID, Peer: p.Node})
		}
	case store.ChangeNode: // a daemon left or came back: its sessions are gone or live again
		for _, p := range w.byBranch {
			if p.Node == c.Node {
				w.sv.log.Publish(api.Notice{Session: p.Session.ID, Peer: p.Node})
			}
		}
	}
}
