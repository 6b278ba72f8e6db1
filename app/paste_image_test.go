package app

import (
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestPasteImagePath pastes paths to image files as terminals paste a dropped or copied file:
// one in the workspace becomes an @mention (quoted when it has a space), one outside is not
// read and says so, and a paste that is text stays text.
func TestPasteImagePath(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	ws := t.TempDir()
	m.session.Workspace = ws
	for _, c := range []struct{ paste, want string }{
		{filepath.Join(ws, "shot.png"), "@shot.png "},
		{"'" + filepath.Join(ws, "my shots", "a b.PNG") + "'", `@"my shots/a b.PNG" `},
		{strings.ReplaceAll(filepath.Join(ws, "x y.jpg"), " ", `\ `), `@"x y.jpg" `},
		{"file://" + filepath.Join(ws, "d", "c.webp"), "@d/c.webp "},
		{"look at shot.png please", "look at shot.png please"},
		{filepath.Join(ws, "main.go"), filepath.Join(ws, "main.go")},
	} {
		m.input.SetValue("")
		m.Update(tea.PasteMsg{Content: c.paste})
		if got := m.input.Value(); got != c.want {
			t.Errorf("paste %q: prompt %q, want %q", c.paste, got, c.want)
		}
	}
	m.input.SetValue("")
	m.Update(tea.PasteMsg{Content: "/etc/shot.png"})
	if m.input.Value() != "" || !strings.Contains(m.info.Message, "outside the workspace") {
		t.Fatalf("a path outside: prompt %q, status %q", m.input.Value(), m.info.Message)
	}
}
