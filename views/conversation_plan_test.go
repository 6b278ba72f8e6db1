package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"exo/themes"
)

func TestPlanShownAsAChecklist(t *testing.T) {
	for _, w := range []int{60, 12} {
		c := NewConversation(NewCommon(themes.Dark()))
		c.SetSize(w, 20)
		c.SetItems([]ConvItem{{Kind: KindPlan, Text: "Three steps.\n[x] Read the code\n[~] Fix the bug\n[ ] Run the tests"}})
		got := ansi.Strip(c.View())
		checkSize(t, c.View(), w, 20)
		if w < 60 {
			continue
		}
		for _, want := range []string{"☰ plan", "  Three steps.", "  ✓ Read the code", "  ▸ Fix the bug", "  ○ Run the tests"} {
			if !strings.Contains(got, want) {
				t.Errorf("the plan lacks %q:\n%s", want, got)
			}
		}
		if strings.Contains(got, "[x]") || strings.Contains(got, "[~]") {
			t.Errorf("boxes shown as text:\n%s", got)
		}
	}
}

func TestStatusShowsTheAgentsCost(t *testing.T) {
	s := NewStatusBar(NewCommon(themes.Dark()))
	s.SetWidth(120)
	s.SetInfo(StatusInfo{Session: "s", Model: "m", Cost: 0.05, AgentCost: 0.0472})
	if got := ansi.Strip(s.View()); !strings.Contains(got, "$0.05 (agent $0.05)") {
		t.Fatalf("status %q", got)
	}
	s.SetInfo(StatusInfo{Session: "s", Model: "m", Cost: 0.05})
	if got := ansi.Strip(s.View()); strings.Contains(got, "agent") {
		t.Fatalf("status without an agent's cost %q", got)
	}
}
