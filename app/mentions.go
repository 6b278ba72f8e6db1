package app

import (
	"context"

	tea "charm.land/bubbletea/v2"
)

// filesMsg carries a session's workspace files for the input's @ completion.
type filesMsg struct {
	id    string
	files []string
}

// filesCmd lists the current session's workspace through the harness API (the app never reads
// the workspace itself); a failure leaves the list empty, so the popup stays closed.
func (m *Model) filesCmd() tea.Cmd {
	id, c := m.current(), m.c
	if id == "" {
		return nil
	}
	return func() tea.Msg {
		files, err := c.Files(context.Background(), id)
		if err != nil || files == nil {
			files = []string{}
		}
		return filesMsg{id: id, files: files}
	}
}

// onFiles hands the listing to the input when it is still the current session's.
func (m *Model) onFiles(msg filesMsg) {
	if msg.id == m.current() {
		m.input.SetFiles(msg.files)
	}
}
