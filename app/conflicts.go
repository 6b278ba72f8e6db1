package app

import (
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"exo/harness/api"
	"exo/views"
)

// conflictDiffMsg carries the diffs of the paths two sessions both changed, or, in none, a
// note saying there is nothing to diff.
type conflictDiffMsg struct {
	title string
	text  string
	none  string
	err   error
}

// conflictDiffCmd diffs every path the current session and the selected sibling both changed:
// the two working copies, or the two sessions' snapshots when they share a workspace.
func (m *Model) conflictDiffCmd(id, name string) tea.Cmd {
	if m.session == nil {
		return nil
	}
	c, cur, curName := m.c, m.session.ID, m.session.Name
	none := fmt.Sprintf("no conflicts between %s and %s: no file was changed by both", curName, name)
	if id == cur {
		none = "no conflicts: no other session changed a file " + curName + " changed"
	}
	if r, ok := m.siblings.Selected(); ok && r.ID == id && r.Conflicts == 0 {
		return m.say(none, false) // nothing to diff: not an error
	}
	return func() tea.Msg {
		with := id
		if with == cur {
			with = ""
		}
		d, err := c.ConflictDiff(bg, cur, with)
		if errors.Is(err, api.ErrNotFound) && !errors.Is(err, api.ErrNoSession) {
			return conflictDiffMsg{none: none} // the conflicts went since the row was drawn
		}
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
	if msg.none != "" {
		return m.say(msg.none, false)
	}
	m.overlay = views.NewDetail(m.common, msg.title, []byte(msg.text))
	m.resize()
	return nil
}
