package app

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/harness/api"
)

// TestSlashSeqsAreChecked: /rewind past the head is refused before anything is asked (it opened
// a confirmation of "0 events" that failed only after y), and a word where an event number
// belongs says so instead of quoting strconv.
func TestSlashSeqsAreChecked(t *testing.T) {
	m := newTestModel(t)
	for _, c := range []struct{ name, args, want string }{
		{"rewind", "999", "seq 999 is past the head"},
		{"fork", "999", "seq 999 is past the head"},
		{"fork", "abc", `"abc" is not an event number`},
		{"rewind", "x1", "give the event number"},
	} {
		m.info.Message = ""
		if cmd := m.slash(c.name, c.args); m.info.Message == "" {
			m.Update(cmd()) // the harness's answer; a message said at once needs no run
		}
		if m.overlay != nil {
			t.Fatalf("/%s %s opened a dialog", c.name, c.args)
		}
		if !strings.Contains(m.info.Message, c.want) || !m.info.MessageErr || strings.Contains(m.info.Message, "strconv") {
			t.Fatalf("/%s %s says %q, want an error with %q", c.name, c.args, m.info.Message, c.want)
		}
	}
}

// TestNoModelSaysHowToStart: with no model registered, an empty session's conversation says how
// to start (the status bar's message fades and was cut at 60 columns) until a model is chosen.
func TestNoModelSaysHowToStart(t *testing.T) {
	m := newTestModel(t)
	s, err := m.c.NewSession(bg, api.NewSessionRequest{Name: "fresh"})
	if err != nil {
		t.Fatal(err)
	}
	switchSession(m, s.ID)
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	if !m.noModel {
		t.Skip("a model is registered in the test harness")
	}
	screen := ansi.Strip(m.render())
	if !strings.Contains(screen, "No model is registered yet.") || !strings.Contains(screen, "/model demo for the") {
		t.Fatalf("an empty session without a model does not say how to start:\n%s", screen)
	}
	m.Update(m.setModelCmd("demo")())
	m.Update(m.loadCmd(s.ID)())
	if screen := ansi.Strip(m.render()); strings.Contains(screen, "No model is registered") || !strings.Contains(screen, "no messages yet") {
		t.Fatalf("after /model demo the pane still says no model:\n%s", screen)
	}
}
