package app

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/harness"
	"exo/harness/service"
	"exo/views"
)

// newTestModel opens a harness with one session of a few events and returns the loaded model.
func newTestModel(t *testing.T) *Model {
	t.Helper()
	h, err := harness.Open(t.TempDir(), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	s, _ := h.NewSession(harness.NewSessionOptions{Name: "layout"})
	code := 0
	h.Append(s.ID,
		harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: "make it faster 🚀 — 世界"}),
		harness.MustRecord(harness.TypeToolStarted, "tool:bash", harness.ToolStarted{CallID: "c1", Tool: "bash", Summary: "go test ./..."}),
		harness.MustRecord(harness.TypeToolCompleted, "tool:bash", harness.ToolCompleted{CallID: "c1", Tool: "bash", Output: "ok\n\x1b]0;evil title\x07done", ExitCode: &code}),
		harness.MustRecord(harness.TypeModelCompleted, "executor:default", harness.ModelCompleted{Text: "# Done\n\nThe **slow path** is fixed.", StopReason: "end_turn"}),
	)
	svc := service.New(h, service.Options{})
	t.Cleanup(func() { svc.Close() })
	m := New(svc, Options{Session: s.ID, Theme: "dark"})
	m.Update(m.attachCmd()())
	m.Update(m.siblingsCmd()())
	return m
}

// TestLayoutFitsEverySize renders the app at sizes from the 60×20 minimum to very wide and
// checks the screen is exactly the terminal's size, with no line wrapping.
func TestLayoutFitsEverySize(t *testing.T) {
	m := newTestModel(t)
	for _, sz := range [][2]int{{60, 20}, {80, 24}, {120, 40}, {200, 60}, {40, 10}, {300, 80}} {
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		screen := m.render()
		lines := strings.Split(screen, "\n")
		if len(lines) != sz[1] {
			t.Fatalf("%dx%d: %d lines", sz[0], sz[1], len(lines))
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w != sz[0] {
				t.Fatalf("%dx%d: line %d is %d cells wide: %q", sz[0], sz[1], i, w, ansi.Strip(l))
			}
		}
		if strings.Contains(screen, "evil title") && strings.Contains(screen, "\x1b]0;") {
			t.Fatalf("%dx%d: a title-setting sequence reached the screen", sz[0], sz[1])
		}
		if sz[0] >= 80 && !strings.Contains(ansi.Strip(screen), "layout") {
			t.Fatalf("%dx%d: the session name is not shown", sz[0], sz[1])
		}
	}
}

// TestFocusZoomAndHelp cycles focus, zooms and opens help without breaking the layout.
func TestFocusZoomAndHelp(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	for i := 0; i < int(focusCount); i++ {
		m.Update(tea.KeyPressMsg{Code: tea.KeyTab})
	}
	if m.focus != focusInput {
		t.Fatalf("tab cycle ended on %d", m.focus)
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyTab})
	m.Update(tea.KeyPressMsg{Code: 'z', Mod: tea.ModAlt})
	if !m.zoom || !strings.Contains(ansi.Strip(m.render()), "Done") {
		t.Fatal("zoom did not show the conversation full screen")
	}
	m.Update(tea.KeyPressMsg{Code: '?', Text: "?"})
	if m.overlay == nil || !strings.Contains(ansi.Strip(m.render()), "next pane") {
		t.Fatal("help overlay missing")
	}
}

// TestIdleAppSchedulesNoClock checks the spinner clock runs only while something moves: an idle
// app schedules no periodic redraw (and so uses no CPU between events).
func TestIdleAppSchedulesNoClock(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(views.SpinnerTickMsg{})
	if m.ticking {
		t.Fatal("an idle app keeps its clock running")
	}
	id := m.current()
	m.Update(noticesMsg{[]harness.Notice{{Session: id, Turn: &harness.TurnNotice{ID: "t1", Running: true}}}})
	if !m.ticking || !m.busy() {
		t.Fatal("a running turn did not start the spinner clock")
	}
	m.Update(noticesMsg{[]harness.Notice{{Session: id, Turn: &harness.TurnNotice{ID: "t1", Result: &harness.TurnResult{}}}}})
	if _, cmd := m.Update(views.SpinnerTickMsg{}); cmd != nil && m.ticking {
		t.Fatal("the clock kept running after the turn ended")
	}
	if m.ticking {
		t.Fatal("the clock did not stop after the turn ended")
	}
}
