package app

import (
	tea "charm.land/bubbletea/v2"

	"exo/views"
)

// conflictDiffMsg carries the diffs of the paths two sessions both changed.
type conflictDiffMsg struct {
	title string
	text  string
	err   error
}

// conflictDiffCmd diffs every path the current session and the selected sibling both changed:
// the two working copies, or the two sessions' snapshots when they share a workspace.
func (m *Model) conflictDiffCmd(id, name string) tea.Cmd {
	if m.session == nil {
		return nil
	}
	c, cur := m.c, m.session.ID
	return func() tea.Msg {
		with := id
		if with == cur {
			with = ""
		}
		d, err := c.ConflictDiff(bg, cur, with)
		if err != nil {
			return conflictDiffMsg{err: err}
		}
		return conflictDiffMsg{title: "conflicts with " + name, text: d}
	}
}

// showConflictDiff opens the diff in the detail overlay.
func (m *Model) showConflictDiff(msg conflictDiffMsg) tea.Cmd {
	if msg.err != nil {
		return m.say(msg.err.Error(), true)
	}
	m.overlay = views.NewDetail(m.common, msg.title, []byte(msg.text))
	m.resize()
	return nil
}
