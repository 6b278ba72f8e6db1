package app

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/harness"
)

// TestProgressNote renders the first snapshot's progress for the status bar.
func TestProgressNote(t *testing.T) {
	cases := map[string]*harness.Progress{
		"snapshotting the workspace: scanning files…": {Task: "snapshot", Total: -1},
		"snapshotting the workspace: 1200/3000 files": {Task: "snapshot", Done: 1200, Total: 3000},
		"workspace snapshot done (3000 files)":        {Task: "snapshot", Done: 3000, Total: 3000, Finished: true},
	}
	for want, p := range cases {
		if got := progressNote(p); got != want {
			t.Errorf("progressNote(%+v) = %q, want %q", *p, got, want)
		}
	}
}

// TestAppShowsSnapshotProgress: the current session's snapshot progress notices reach the
// status bar, updating in place; another session's progress does not.
func TestAppShowsSnapshotProgress(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	id := m.current()
	m.Update(noticesMsg{[]harness.Notice{{Session: "another", Progress: &harness.Progress{Task: "snapshot", Done: 5, Total: 9}}}})
	if s := ansi.Strip(m.render()); strings.Contains(s, "snapshotting") {
		t.Fatal("another session's progress reached the status bar")
	}
	m.Update(noticesMsg{[]harness.Notice{{Session: id, Progress: &harness.Progress{Task: "snapshot", Done: 1200, Total: 3000}}}})
	if s := ansi.Strip(m.render()); !strings.Contains(s, "snapshotting the workspace: 1200/3000 files") {
		t.Fatalf("no progress on the status bar:\n%s", s)
	}
	m.Update(noticesMsg{[]harness.Notice{{Session: id, Progress: &harness.Progress{Task: "snapshot", Done: 3000, Total: 3000, Finished: true}}}})
	s := ansi.Strip(m.render())
	if !strings.Contains(s, "workspace snapshot done (3000 files)") || strings.Contains(s, "1200/3000") {
		t.Fatalf("the end of the snapshot is not shown:\n%s", s)
	}
}
