package views

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/themes"
)

// checkSize fails unless view is exactly h lines of at most w cells.
func checkSize(t testing.TB, view string, w, h int) {
	t.Helper()
	checkControls(t, view)
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Errorf("view has %d lines, want %d:\n%s", len(lines), h, ansi.Strip(view))
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got > w {
			t.Errorf("line %d is %d cells wide, pane is %d: %q", i, got, w, ansi.Strip(l))
		}
	}
}

// press builds a key press message for a key name like "j", "enter", "pgdown".
func press(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "alt+enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt}
	case "shift+enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModShift}
	}
	if c, ok := strings.CutPrefix(k, "ctrl+"); ok && len(c) == 1 {
		return tea.KeyPressMsg{Code: rune(c[0]), Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// run calls a command and returns its message, or nil.
func run(cmd tea.Cmd) tea.Msg {
	if cmd == nil {
		return nil
	}
	return cmd()
}

// testThemes are the themes goldens are taken in.
var testThemes = map[string]func() *themes.Styles{"dark": themes.Dark, "light": themes.Light}

// t0 is a fixed time for deterministic rows.
var t0 = time.Date(2026, 11, 22, 2, 30, 0, 0, time.UTC)

// sampleRows builds n timeline rows of mixed types.
func sampleRows(n int) TimelineRows {
	types := []string{"invocation.received", "step.started", "model.requested", "model.completed", "tool.started", "tool.completed", "workspace.snapshot"}
	actors := []string{"user", "harness", "executor:default", "executor:default", "tool:bash", "tool:bash", "harness"}
	rows := make(TimelineRows, n)
	for i := range rows {
		k := i % len(types)
		rows[i] = TimelineRow{Seq: uint64(i + 1), Time: t0.Add(time.Duration(i) * time.Second), Actor: actors[k], Type: types[k],
			Summary: fmt.Sprintf("%s event number %d with a summary that is long enough to be cut", types[k], i+1), Branch: "main"}
	}
	return rows
}

// splitLines splits a view into its lines.
func splitLines(s string) []string { return strings.Split(s, "\n") }

// checkControls fails if view holds a control character other than the
// newline and ESC, or an escape sequence other than SGR.
func checkControls(t testing.TB, view string) {
	t.Helper()
	for _, r := range view {
		if r < 0x20 && r != '\n' && r != 0x1b || r == 0x7f || r >= 0x80 && r <= 0x9f {
			t.Fatalf("view holds control character %U", r)
		}
	}
	if Sanitize(view) != view {
		t.Fatalf("view holds non-SGR escape sequences: %q", view)
	}
}
