package app

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"exo/harness"
	"exo/harness/governance"
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
func (m *Model) conflictDiffCmd() tea.Cmd {
	row, ok := m.siblings.Selected()
	if !ok || m.tracker == nil || m.session == nil {
		return nil
	}
	h, tr, cur := m.h, m.tracker, m.session.ID
	return func() tea.Msg {
		st, err := tr.State(cur)
		if err != nil {
			return conflictDiffMsg{err: err}
		}
		var b strings.Builder
		for _, c := range st.Conflicts {
			if row.ID != cur && c.With != row.ID {
				continue
			}
			d, err := conflictDiff(h, cur, c)
			if err != nil {
				d = err.Error()
			}
			fmt.Fprintf(&b, "%s\n\n", d)
		}
		if b.Len() == 0 {
			return conflictDiffMsg{err: fmt.Errorf("no conflicts between this session and %s", row.Name)}
		}
		return conflictDiffMsg{title: "conflicts with " + row.Name, text: b.String()}
	}
}

// conflictDiff renders one conflicting path as a unified diff of the two versions.
func conflictDiff(h *harness.Harness, cur string, c governance.ConflictDetected) (string, error) {
	s, err := h.Session(cur)
	if err != nil {
		return "", err
	}
	if !c.Shared && c.Workspace != "" && c.Workspace != s.Workspace {
		return governance.DiffWorkspaces(c.Path, s.Name, s.Workspace, c.WithName, c.Workspace)
	}
	a, err := h.FileAtSnapshot(cur, c.Path)
	if err != nil {
		return "", err
	}
	b, err := h.FileAtSnapshot(c.With, c.Path)
	if err != nil {
		return "", err
	}
	d := governance.UnifiedDiff(c.Path, s.Name, a, c.WithName, b)
	if d == "" {
		d = c.Path + ": both sessions left it the same"
	}
	return d, nil
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
