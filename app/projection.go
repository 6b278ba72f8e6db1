package app

import (
	"exo/harness/api"
)

// maxEarly bounds the events the app keeps while a load is on its way; past it, the load is
// read again when it lands rather than holding a flood.
const maxEarly = 8192

// The app is a projection of the harness, as every view is: it reads a session once (its
// record, its SessionState, its model, its sandbox and MCP state) and then folds the committed
// events the watch stream brings, with the same Apply the harness folds them with. It reads the
// session again only on a (re)connection, a missed stretch of events (lag, a rewind made
// elsewhere) or an explicit user action (switching session, /model, a rewind).

// follows says how committed events stand against a projection: already in it (before its
// head), next, or past a gap or on another branch (the projection must be read again).
func follows(st *api.SessionState, e api.Event) (next, stale bool) {
	switch {
	case e.Branch != st.Branch:
		return false, true
	case e.Seq <= st.Head:
		return false, false
	case e.Seq == st.Head+1:
		return true, false
	}
	return false, true
}

// foldShown folds committed events of the shown session into its projection, its timeline and
// its MCP servers' state; it reports false when they do not follow the projection (missed
// events, or a rewind made elsewhere), so the session must be read again.
func (m *Model) foldShown(evs []api.Event) bool {
	st := m.state
	if st == nil {
		return true // not loaded yet: the load brings them (see keepEarly)
	}
	for _, e := range evs {
		next, stale := follows(st, e)
		if stale {
			return false
		}
		if !next {
			continue
		}
		st.Apply(e)
		m.foldMCP(e)
		if m.source != nil && m.viewBranch == "" && m.source.branch == e.Branch {
			m.source.add(e)
		}
	}
	return true
}

// showProjection puts the shown session's projection on screen: the conversation (unless an
// earlier point is previewed), the timeline's new rows and the status bar's counters.
func (m *Model) showProjection() {
	if m.state == nil {
		return
	}
	if _, previewing := m.conv.Preview(); !previewing {
		m.conv.SetItems(convItems(m.state))
		m.streaming = false
	}
	if m.viewBranch == "" && m.source != nil {
		m.timeline.Refresh()
	}
	m.stateInfo()
	m.showPlan()
}

// keepEarly holds committed events that arrive while a load is on its way: the load's
// snapshot may be older than they are, and they are folded on top of it when it lands.
func (m *Model) keepEarly(session string, evs []api.Event) {
	if m.loading == 0 || len(evs) == 0 {
		return
	}
	if m.early == nil {
		m.early = map[string][]api.Event{}
	}
	if m.earlyN += len(evs); m.earlyN > maxEarly {
		m.early, m.earlyLost = nil, true
		return
	}
	m.early[session] = append(m.early[session], evs...)
}

// takeEarly returns the events kept for a session while its load was on its way and forgets
// them all; lost is set when some were dropped (the load must be read again).
func (m *Model) takeEarly(session string) (evs []api.Event, lost bool) {
	evs, lost = m.early[session], m.earlyLost
	m.early, m.earlyN, m.earlyLost = nil, 0, false
	return evs, lost
}

// foldMCP follows the shown session's MCP servers through their mcp.server events (connected,
// crashed, restarted…), for the status bar.
func (m *Model) foldMCP(e api.Event) {
	if e.Type != api.TypeMCPServer || m.mcpServers == nil {
		return
	}
	p, err := api.Decode(e)
	if err != nil {
		return
	}
	ev, ok := p.(*api.MCPServer)
	if !ok {
		return
	}
	for i := range m.mcpServers {
		if s := &m.mcpServers[i]; s.Name == ev.Server {
			s.State, s.Error, s.Tools, s.Restarts = ev.State, ev.Error, ev.Tools, ev.Restarts
			m.info.MCP, m.info.MCPErr = api.MCPSummary(m.mcpServers, nil)
			return
		}
	}
}
