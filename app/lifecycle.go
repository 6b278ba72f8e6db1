package app

import (
	tea "charm.land/bubbletea/v2"

	"exo/views"
)

// The sessions pane archives (a) and deletes (x) sessions after a question, through the
// harness API, as exo session archive and exo session rm do.

// archiveConfirmed and deleteConfirmed are the questions' yes.
type (
	archiveConfirmed struct{ id, name string }
	deleteConfirmed  struct{ id, name string }
)

// lifecycleDoneMsg is the result of an archive or a delete.
type lifecycleDoneMsg struct {
	text string
	err  error
}

// askArchive asks before archiving a session.
func (m *Model) askArchive(r views.ArchiveRequest) tea.Cmd {
	if r.Refused != "" {
		return m.say(r.Refused, true)
	}
	m.overlay = views.NewAsk(m.common, "Archive "+r.Name+"?", []string{
		"It leaves this list, exo sessions and exo run -c; nothing is removed.",
		"exo session archive " + r.Name + " --undo brings it back.",
	}, "archive", false, archiveConfirmed{r.ID, r.Name})
	m.resize()
	return nil
}

// askDelete asks before deleting a session, saying what is removed and what is kept.
func (m *Model) askDelete(r views.DeleteRequest) tea.Cmd {
	if r.Refused != "" {
		return m.say(r.Refused, true)
	}
	m.overlay = views.NewAsk(m.common, "Delete "+r.Name+"?", []string{
		"Its fork's working copy, snapshots and sandbox state are removed; your own workspace is not touched.",
		"Its events stay in the log (exo verify still checks them), but no command finds the session again.",
	}, "delete", true, deleteConfirmed{r.ID, r.Name})
	m.resize()
	return nil
}

// onLifecycle handles the questions' answers and the results; ok is false for other messages.
func (m *Model) onLifecycle(msg tea.Msg) (tea.Cmd, bool) {
	c := m.c
	switch msg := msg.(type) {
	case views.ArchiveRequest:
		return m.askArchive(msg), true
	case views.DeleteRequest:
		return m.askDelete(msg), true
	case archiveConfirmed:
		m.overlay = nil
		m.resize()
		return func() tea.Msg {
			if _, err := c.ArchiveSession(bg, msg.id, true); err != nil {
				return lifecycleDoneMsg{err: err}
			}
			return lifecycleDoneMsg{text: "archived " + msg.name + " (exo session archive " + msg.name + " --undo brings it back)"}
		}, true
	case deleteConfirmed:
		m.overlay = nil
		m.resize()
		return func() tea.Msg {
			res, err := c.RemoveSession(bg, msg.id)
			if err != nil {
				return lifecycleDoneMsg{err: err}
			}
			text := "deleted " + msg.name
			switch n := len(res.Removed); {
			case n == 1:
				text += " (removed " + res.Removed[0] + ")"
			case n > 1:
				text += " (removed " + views.Plural(n, "folder") + ")"
			}
			return lifecycleDoneMsg{text: text}
		}, true
	case lifecycleDoneMsg:
		if msg.err != nil {
			return tea.Batch(m.say(msg.err.Error(), true), m.siblingsCmd()), true
		}
		return tea.Batch(m.say(msg.text, false), m.siblingsCmd()), true
	}
	return nil, false
}
