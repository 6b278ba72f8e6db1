package app

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/harness"
	"exo/harness/api"
)

// switchSession does what enter on a siblings row does, applying the two replies in the order
// that used to leave stale state: the siblings list first, the loaded session after.
func switchSession(m *Model, id string) {
	load, sibs := m.loadCmd(id), m.siblingsCmd()
	m.Update(sibs())
	m.Update(load())
}

// markedRow returns the siblings row marked ▸ on screen.
func markedRow(t *testing.T, m *Model) string {
	t.Helper()
	for _, l := range strings.Split(ansi.Strip(m.render()), "\n") {
		if i := strings.Index(l, "▸"); i >= 0 && strings.Contains(l, "○") {
			return l[i:]
		}
	}
	return ""
}

// TestSwitchKeepsSandboxAndMarkerPerSession: after a switch the sandbox pane shows the session
// switched to (not the previous one's output), and comes back with its own output; the ▸ marker
// follows the shown session, also on the first load.
func TestSwitchKeepsSandboxAndMarkerPerSession(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	first := m.current()
	other, err := m.c.NewSession(bg, api.NewSessionRequest{Name: "other"})
	if err != nil {
		t.Fatal(err)
	}
	m.Update(m.siblingsCmd()())
	if row := markedRow(t, m); !strings.Contains(row, "layout") {
		t.Fatalf("first load: ▸ on %q, want layout", row)
	}
	m.Update(noticesMsg{[]harness.Notice{{Session: first, Output: []byte("OUTPUT_OF_FIRST\n")}}})
	if !strings.Contains(ansi.Strip(m.render()), "OUTPUT_OF_FIRST") {
		t.Fatal("the current session's output is not shown")
	}
	switchSession(m, other.ID)
	screen := ansi.Strip(m.render())
	if strings.Contains(screen, "OUTPUT_OF_FIRST") {
		t.Fatalf("after a switch the sandbox shows the previous session's output:\n%s", screen)
	}
	if row := markedRow(t, m); !strings.Contains(row, "other") {
		t.Fatalf("after a switch ▸ is on %q, want other", row)
	}
	m.Update(noticesMsg{[]harness.Notice{{Session: first, Output: []byte("MORE_OF_FIRST\n")}}})
	switchSession(m, first)
	screen = ansi.Strip(m.render())
	if !strings.Contains(screen, "OUTPUT_OF_FIRST") || !strings.Contains(screen, "MORE_OF_FIRST") {
		t.Fatalf("back on the first session its output is gone:\n%s", screen)
	}
}
