package views

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// sampleScores are three attempts: one passed its check, one failed it, one still runs.
func sampleScores() []ScoreRow {
	return []ScoreRow{
		{Cells: []string{"quest.a1b2c3.1", "default·sonnet", "done", "pass", "1", "0.00", "2", "1", "1074", "$0.0210", "420ms", "3.1s", "0"}, Pass: true, Kept: true},
		{Cells: []string{"quest.a1b2c3.2", "codex·gpt-5", "done", "fail 1", "2", "0.18", "3", "2", "2210", "$0.0340", "610ms", "5.4s", "1"}, Fail: true},
		{Cells: []string{"quest.a1b2c3.3", "claude-code·opus", "running", "-", "0", "0.00", "1", "0", "512", "$0.0090", "380ms", "1.2s", "0"}},
	}
}

// TestScoreboardGolden keeps the scoreboard's screens at 60×20 and 200×60, light and dark,
// sorted by the check column with the second attempt selected.
func TestScoreboardGolden(t *testing.T) {
	for theme, mk := range testThemes {
		for _, term := range [][2]int{{60, 20}, {200, 60}} {
			t.Run(fmt.Sprintf("%s/%dx%d", theme, term[0], term[1]), func(t *testing.T) {
				s := NewScoreboard(NewCommon(mk()), `att-a1b2c3d4: "make the tests pass" from quest@12`)
				s.SetRows(sampleScores(), 3)
				s.Update(tea.KeyPressMsg{Code: tea.KeyDown})
				s.SetSize(term[0], term[1])
				view := s.View()
				checkSize(t, view, term[0], term[1])
				checkMaxWidth(t, view, term[0], term[1])
				golden.RequireEqual(t, ansi.Strip(view))
			})
		}
	}
}

// TestScoreboardKeys: the arrows ask for another sort column (wrapping), enter for the diff of
// the selected attempt, K to keep it, A to keep it and archive the others, R to replay the
// original under its runner; a narrow screen drops the least useful columns
// first and keeps the attempt, its status and its check.
func TestScoreboardKeys(t *testing.T) {
	s := NewScoreboard(NewCommon(nil), "set")
	s.SetRows(sampleScores(), -1)
	s.SetSize(60, 10)
	msgOf := func(k tea.KeyPressMsg) tea.Msg {
		_, cmd := s.Update(k)
		if cmd == nil {
			return nil
		}
		return cmd()
	}
	if m := msgOf(tea.KeyPressMsg{Code: tea.KeyRight}); m != (ScoreSort{Col: 0}) {
		t.Fatalf("→ from no sort: %#v", m)
	}
	if m := msgOf(tea.KeyPressMsg{Code: tea.KeyLeft}); m != (ScoreSort{Col: len(ScoreColumns) - 1}) {
		t.Fatalf("← from no sort: %#v", m)
	}
	s.SetRows(sampleScores(), len(ScoreColumns)-1)
	if m := msgOf(tea.KeyPressMsg{Code: tea.KeyRight}); m != (ScoreSort{Col: 0}) {
		t.Fatalf("→ from the last column does not wrap: %#v", m)
	}
	msgOf(tea.KeyPressMsg{Code: tea.KeyDown})
	msgOf(tea.KeyPressMsg{Code: tea.KeyDown})
	msgOf(tea.KeyPressMsg{Code: tea.KeyDown})
	if m := msgOf(tea.KeyPressMsg{Code: 'K', Text: "K"}); m != (ScoreOpen{Row: 2, Keep: true}) {
		t.Fatalf("K on the last row: %#v", m)
	}
	if m := msgOf(tea.KeyPressMsg{Code: 'A', Text: "A"}); m != (ScoreOpen{Row: 2, Keep: true, Archive: true}) {
		t.Fatalf("A on the last row: %#v", m)
	}
	if m := msgOf(tea.KeyPressMsg{Code: 'R', Text: "R"}); m != (ScoreOpen{Row: 2, Replay: true}) {
		t.Fatalf("R on the last row: %#v", m)
	}
	if m := msgOf(tea.KeyPressMsg{Code: tea.KeyEnter}); m != (ScoreOpen{Row: 2}) {
		t.Fatalf("enter: %#v", m)
	}
	v := ansi.Strip(s.View())
	for _, want := range []string{"ATTEMPT", "STATUS", "CHECK", "fail 1", "running"} {
		if !strings.Contains(v, want) {
			t.Errorf("the narrow scoreboard lost %q:\n%s", want, v)
		}
	}
	for _, want := range []string{"K keep", "A keep + archive", "R replay", "esc close", "quest.a1b2c3.3"} {
		if !strings.Contains(v, want) {
			t.Errorf("the narrow scoreboard hides %q (every key must stay readable):\n%s", want, v)
		}
	}
	if strings.Contains(v, "ASKED") {
		t.Errorf("the narrow scoreboard kept the least useful column:\n%s", v)
	}
}
