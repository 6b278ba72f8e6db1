package app

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
)

// TestJoinsMatchLipgloss: the screen's joins give what lipgloss's give, for blocks of
// different widths and heights, styled text and wide characters among them.
func TestJoinsMatchLipgloss(t *testing.T) {
	t.Parallel()
	red := lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	blocks := []string{
		"╭─ conversation ──────────╮\n│ " + red.Render("● assistant") + " ⠋ │\n│ 日本語 and more text here │\n╰──────────────────────────╯",
		"short\n",
		"",
		"one line that is longer than the others, with no newline at all",
		"a\nbb\nccc\ndddd\neeeee",
		red.Render("styled") + "\n\x1b[1mbold\x1b[m trailing   ",
	}
	for i := range blocks {
		for j := range blocks {
			a, b := blocks[i], blocks[j]
			if got, want := joinColumn(a, b), lipgloss.JoinVertical(lipgloss.Left, a, b); got != want {
				t.Errorf("column %d,%d:\n%q\nwant\n%q", i, j, got, want)
			}
			if got, want := joinRow(a, b), lipgloss.JoinHorizontal(lipgloss.Top, a, b); got != want {
				t.Errorf("row %d,%d:\n%q\nwant\n%q", i, j, got, want)
			}
		}
	}
	three := []string{blocks[0], blocks[4], blocks[5]}
	if got, want := joinColumn(three...), lipgloss.JoinVertical(lipgloss.Left, three...); got != want {
		t.Errorf("three in a column:\n%q\nwant\n%q", got, want)
	}
	if got := joinRow(strings.Repeat("x\n", 3)+"x", "y"); got != "xy\nx \nx \nx " {
		t.Errorf("a shorter block is not continued with blanks: %q", got)
	}
}
