package app

import (
	tea "charm.land/bubbletea/v2"
	"exo/harness/api"
)

// Sessions of other daemons on a store shared through etcd are shown read-only, live; a key in
// the siblings pane takes over one whose daemon is gone.

// takenOverMsg is the result of a take-over.
type takenOverMsg struct {
	s   *api.Session
	err error
}

// takeOverCmd makes another daemon's session (whose daemon is gone) this daemon's.
func (m *Model) takeOverCmd(id string) tea.Cmd {
	c := m.c
	return func() tea.Msg {
		s, err := c.TakeOver(bg, id)
		return takenOverMsg{s: s, err: err}
	}
}

// sessionTitle is the conversation's title: the session's name, and for another daemon's
// session that daemon and that it is read-only here.
func sessionTitle(s *api.Session) string {
	if s.Node == "" {
		return s.Name
	}
	return s.Name + " @" + s.Node + " · read-only"
}

// readOnlyText says why a prompt cannot go to another daemon's session.
func readOnlyText(s *api.Session) string {
	return s.Name + " runs on daemon " + s.Node + ": it is read-only here (its events arrive live); " +
		"once that daemon is gone, T in the sessions pane takes it over"
}
