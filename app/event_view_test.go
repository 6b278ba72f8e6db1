package app

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/harness/api"
)

// TestEventViewShowsShellText opens the event view on an event as the log holds it (its
// payload's & < > escaped when it was encoded): the view shows the command as it was typed.
func TestEventViewShowsShellText(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	data, _ := json.Marshal(map[string]string{"command": "make && ./app > out.txt 2>&1 < in"})
	m.Update(eventMsg{ev: api.Event{Branch: "b", Seq: 7, Type: "tool.started", Actor: "tool:bash", Data: data}})
	screen := ansi.Strip(m.render())
	if !strings.Contains(screen, "make && ./app > out.txt 2>&1 < in") || strings.Contains(screen, `\u00`) {
		t.Fatalf("the event view:\n%s", screen)
	}
}
