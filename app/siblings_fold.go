package app

import (
	"exo/harness/api"
	"exo/views"
)

// siblingSet is the siblings pane's projection: every session as the harness listed it, then
// kept up to date from the watch stream, without listing again: committed events fold into
// each session's counters with SessionState's Apply, turn notices say which run, client
// notices how many watch each, governance notices its drift and conflicts. A session it does
// not know, missed events or another daemon's announcement make it list again.
type siblingSet struct {
	infos []api.SessionInfo
	// states are the folded counters of each session (by id): the listed ones to start with.
	states map[string]*api.SessionState
}

// newSiblingSet starts the projection from a listing.
func newSiblingSet(all []api.SessionInfo) *siblingSet {
	s := &siblingSet{infos: all, states: make(map[string]*api.SessionState, len(all))}
	for _, in := range all {
		s.states[in.Session.ID] = &api.SessionState{Branch: in.Session.Branch, Head: in.Head, Status: in.Status, Model: in.Model,
			Steps: in.Steps, Usage: in.Usage, Cost: in.Cost, Executor: in.Executor}
	}
	return s
}

// index returns the position of a session in the listing, or -1.
func (s *siblingSet) index(id string) int {
	for i := range s.infos {
		if s.infos[i].Session.ID == id {
			return i
		}
	}
	return -1
}

// fold applies one notice; it reports whether it changed a row, and whether the sessions must
// be listed again.
func (s *siblingSet) fold(n api.Notice) (changed, relist bool) {
	changed = n.Clients != nil || n.Turn != nil || n.Governance != nil || n.Updated != nil || len(n.Events) > 0
	if n.Clients != nil {
		for i := range s.infos {
			s.infos[i].Clients = n.Clients[s.infos[i].Session.ID]
		}
	}
	if n.Lagged {
		return changed, true
	}
	if n.Session == "" {
		return changed, false
	}
	i := s.index(n.Session)
	if i < 0 {
		return changed, len(n.Events) > 0 || n.Turn != nil || n.Peer != "" // a session made since the listing
	}
	in := &s.infos[i]
	if n.Peer != "" && len(n.Events) == 0 {
		return changed, true // another daemon's session changed hands, or came or went
	}
	if t := n.Turn; t != nil {
		in.Running = t.Running
	}
	if g := n.Governance; g != nil {
		in.Drift, in.Conflicts = g.Drift, g.Conflicts
	}
	if u := n.Updated; u != nil && u.ID == in.Session.ID {
		in.Session = u
	}
	if len(n.Events) > 0 {
		return changed, s.foldEvents(i, n.Events)
	}
	s.settle(in)
	return changed, false
}

// foldEvents folds a session's committed events into its counters; it reports whether they do
// not follow what the listing said (the sessions are listed again).
func (s *siblingSet) foldEvents(i int, evs []api.Event) bool {
	in := &s.infos[i]
	st := s.states[in.Session.ID]
	for _, e := range evs {
		next, stale := follows(st, e)
		if stale {
			return true
		}
		if !next {
			continue
		}
		st.Apply(e)
		st.Items = nil // the pane shows counters, never the conversation
		switch e.Type {
		case api.TypeSessionArchived:
			if p, err := api.Decode(e); err == nil {
				se := *in.Session
				se.Archived = p.(*api.SessionArchived).Archived
				in.Session = &se
			}
		case api.TypeSessionDeleted:
			delete(s.states, in.Session.ID)
			s.infos = append(s.infos[:i:i], s.infos[i+1:]...)
			return false
		}
	}
	in.Head, in.Model, in.Steps, in.Usage, in.Cost, in.Executor = st.Head, st.Model, st.Steps, st.Usage, st.Cost, st.Executor
	s.settle(in)
	return false
}

// settle derives a session's shown status from its folded one and whether a turn runs, as the
// harness lists it: a session no executor runs is idle, whatever the log's last word was.
func (s *siblingSet) settle(in *api.SessionInfo) {
	st := s.states[in.Session.ID]
	in.Status = st.Status
	if in.Node != "" { // another daemon's: it runs while that daemon holds it
		in.Running = in.Live && st.Status == api.StatusRunning
		if !in.Live && (st.Status == api.StatusRunning || st.Status == api.StatusWaiting) {
			in.Status = api.StatusIdle
		}
		return
	}
	if !in.Running && (st.Status == api.StatusRunning || st.Status == api.StatusWaiting) {
		in.Status = api.StatusIdle
	}
}

// rows returns the pane's rows.
func (s *siblingSet) rows() []views.SiblingRow { return siblingRows(s.infos) }
