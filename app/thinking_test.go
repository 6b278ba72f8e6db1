package app

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/harness"
	"exo/harness/provider"
	"exo/harness/service"
)

// TestReasoningShowsAsAThinkingBlock streams reasoning then an answer into the app, as the
// executor publishes them, and then commits the step: the live thinking block is dimmed text
// under "thinking", and the committed one is a collapsed "thought" line.
func TestReasoningShowsAsAThinkingBlock(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	id := m.session.ID
	m.onNotices([]harness.Notice{{Session: id, Reasoning: "The user wants the weather; "}, {Session: id, Reasoning: "call the tool."}})
	if screen := ansi.Strip(m.render()); !strings.Contains(screen, "thinking") || !strings.Contains(screen, "The user wants the weather; call the tool.") {
		t.Fatalf("streaming reasoning not shown:\n%s", screen)
	}
	m.onNotices([]harness.Notice{{Session: id, Delta: "It is 40 C."}})
	if screen := ansi.Strip(m.render()); !strings.Contains(screen, "thought · 1 line") || !strings.Contains(screen, "It is 40 C.") {
		t.Fatalf("the answer did not follow a collapsed thought:\n%s", screen)
	}
	evs, err := m.c.(*service.Service).Harness().Append(id, harness.MustRecord(harness.TypeModelCompleted, "executor:default", harness.ModelCompleted{Text: "It is 40 C.",
		Reasoning: []harness.Reasoning{{Format: provider.ReasoningAnthropic, Type: "thinking", Text: "The user wants the weather; call the tool.", Signature: "EtYD"}}}))
	if err != nil {
		t.Fatal(err)
	}
	m.Update(m.refreshCmd()())
	screen := ansi.Strip(m.render())
	if strings.Count(screen, "thought · 1 line") != 1 || strings.Count(screen, "It is 40 C.") != 1 {
		t.Fatalf("after seq %d the committed step shows once:\n%s", evs[0].Seq, screen)
	}
}
