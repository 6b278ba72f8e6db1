package app

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/harness"
	"exo/harness/api"
	"exo/views"
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

// TestNewSessionFromAForkUsesTheProject: /new (or n) while a fork is shown starts the session in
// the project's directory, not in the fork's private working copy.
func TestNewSessionFromAForkUsesTheProject(t *testing.T) {
	m := newTestModel(t)
	project := t.TempDir()
	src, err := m.c.NewSession(bg, api.NewSessionRequest{Name: "src", Workspace: project})
	if err != nil {
		t.Fatal(err)
	}
	fork, err := m.c.Fork(bg, api.ForkRequest{Session: src.ID, Name: "side"})
	if err != nil || fork.Workspace == project {
		t.Fatalf("fork: %v, workspace %q", err, fork.Workspace)
	}
	switchSession(m, fork.ID)
	msg := m.newSessionCmd()().(newSessionMsg)
	if msg.err != nil || msg.s.Workspace != project {
		t.Fatalf("new session from the fork works in %q (%v), want %q", msg.s.Workspace, msg.err, project)
	}
}

// TestHelpListsEveryPaneAndFitsSmallTerminals: ? shows the focused pane's keys and the global
// ones (quit included) even at 60×20, and scrolling reaches every other pane's keys, those the
// app routes itself (b, d, [ and ]) included.
func TestHelpListsEveryPaneAndFitsSmallTerminals(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	m.setFocus(focusConv)
	m.Update(tea.KeyPressMsg{Code: '?', Mod: tea.ModAlt})
	screen := ansi.Strip(m.render())
	if m.overlay == nil || !strings.Contains(screen, "ctrl+q") || !strings.Contains(screen, "next tool") {
		t.Fatalf("help at 60×20 lacks quit or the focused pane's keys:\n%s", screen)
	}
	seen := screen
	for i := 0; i < 12; i++ {
		m.Update(tea.KeyPressMsg{Code: tea.KeyPgDown})
		seen += ansi.Strip(m.render())
	}
	for _, want := range []string{"next branch", "diff conflicts", "prev tool", "split view", "fork here", "alt+enter"} {
		if !strings.Contains(seen, want) {
			t.Errorf("help never shows %q", want)
		}
	}
}

// TestSplitViewSaysWhereThePromptGoes: with two sessions side by side, the prompt's title names
// the session that gets it.
func TestSplitViewSaysWhereThePromptGoes(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	other, _ := m.c.NewSession(bg, api.NewSessionRequest{Name: "other"})
	m.Update(m.siblingsCmd()())
	if strings.Contains(ansi.Strip(m.render()), "Prompt → ") {
		t.Fatal("one session shown, yet the prompt names a target")
	}
	m.Update(m.toggleSplit(other.ID)())
	if screen := ansi.Strip(m.render()); !m.splitOn || !strings.Contains(screen, "Prompt → layout") {
		t.Fatalf("split view does not say where the prompt goes:\n%s", screen)
	}
}

// TestInputGrowsWithThePrompt: the input pane grows a line per line of prompt (up to its
// maximum) and shrinks back once the prompt is sent; the screen keeps its size.
func TestInputGrowsWithThePrompt(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	base := m.lay.input.h
	for i := 0; i < 5; i++ {
		m.Update(tea.KeyPressMsg{Code: 'x', Text: "x"})
		m.Update(tea.KeyPressMsg{Code: 'j', Mod: tea.ModCtrl})
	}
	if m.lay.input.h != base+4 {
		t.Fatalf("input %d rows tall with 6 lines of prompt, want %d", m.lay.input.h, base+4)
	}
	if lines := strings.Split(m.render(), "\n"); len(lines) != 48 {
		t.Fatalf("screen %d lines", len(lines))
	}
	for i := 0; i < 20; i++ {
		m.Update(tea.KeyPressMsg{Code: 'j', Mod: tea.ModCtrl})
	}
	if m.lay.input.h != 3+views.MaxInputLines {
		t.Fatalf("input %d rows tall with 26 lines, want the maximum %d", m.lay.input.h, 3+views.MaxInputLines)
	}
	m.input.SetValue("")
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnd})
	if m.lay.input.h != base {
		t.Fatalf("input %d rows tall once empty, want %d", m.lay.input.h, base)
	}
}

// TestNewSessionTakesThePrompt: n in the siblings pane makes a session, selects its row (in view
// however long the list) and puts the focus on the input, so the prompt typed next is text and
// not the siblings pane's keys (an "n" in it made yet another session).
func TestNewSessionTakesThePrompt(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	for i := 0; i < 14; i++ {
		if _, err := m.c.NewSession(bg, api.NewSessionRequest{Name: fmt.Sprintf("filler-%02d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	m.Update(m.siblingsCmd()())
	m.setFocus(focusSiblings)
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'n', Mod: tea.ModAlt})
	_, cmd = m.Update(cmd()) // the pane asks for a new session
	made, ok := cmd().(newSessionMsg)
	if !ok || made.err != nil {
		t.Fatalf("n made no session: %+v", made)
	}
	m.Update(made)
	switchSession(m, made.s.ID)
	if m.focus != focusInput {
		t.Fatalf("after n the focus is on pane %d, not the input", m.focus)
	}
	if m.current() == "" || m.sessionName(m.current()) == "layout" {
		t.Fatal("n did not switch to a new session")
	}
	if row := markedRow(t, m); !strings.Contains(row, m.sessionName(m.current())) {
		t.Fatalf("the new session's row is not in view (▸ on %q)", row)
	}
}
