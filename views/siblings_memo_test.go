package views

import (
	"fmt"
	"math/rand/v2"
	"testing"

	tea "charm.land/bubbletea/v2"

	"exo/themes"
)

// TestSiblingsViewKeptOnlyWhileUnchanged: the sessions pane keeps its last View while nothing
// it shows changed; after every kind of change (rows, spinner, selection, focus, size, the
// current session, the theme) the kept View is what a fresh rendering gives.
func TestSiblingsViewKeptOnlyWhileUnchanged(t *testing.T) {
	c := NewCommon(themes.Dark())
	s := NewSiblings(c)
	s.SetSize(60, 12)
	r := rand.New(rand.NewPCG(1, 2))
	statuses := []SessionStatus{StatusIdle, StatusRunning, StatusFinished, StatusApproval}
	rows := func() []SiblingRow {
		var out []SiblingRow
		for i := range 3 + r.IntN(12) {
			row := SiblingRow{ID: fmt.Sprint("s", i), Name: fmt.Sprint("session-", i), Status: statuses[r.IntN(len(statuses))],
				Model: "demo", TokensIn: r.IntN(5000), TokensOut: r.IntN(900), Cost: float64(r.IntN(100)) / 100, Drift: r.Float64()}
			if i > 0 && r.IntN(3) == 0 {
				row.Parent = fmt.Sprint("s", r.IntN(i))
			}
			out = append(out, row)
		}
		return out
	}
	s.SetRows(rows())
	ops := []func(){
		func() { s.SetRows(rows()) },
		func() { s.SetRows(s.Rows()) }, // the same rows again
		func() { s.Update(SpinnerTickMsg{}) },
		func() { s.Update(tea.KeyPressMsg{Code: tea.KeyDown}) },
		func() { s.Update(tea.KeyPressMsg{Code: tea.KeyUp}) },
		func() { s.Focus() },
		func() { s.Blur() },
		func() { s.SetSize(40+r.IntN(120), 4+r.IntN(30)) },
		func() { s.SetCurrent(fmt.Sprint("s", r.IntN(6))) },
		func() { c.SetStyles(themes.Light()) },
		func() { c.SetStyles(themes.Dark()) },
		func() {},
	}
	for i := range 2000 {
		ops[r.IntN(len(ops))]()
		got := s.View()
		s.View() // the selection may have moved the rows shown: settled now
		s.memo = "kept"
		if s.View() != "kept" {
			t.Fatalf("step %d: a View with nothing changed was rendered again", i)
		}
		s.memo = ""
		if want := s.View(); got != want {
			t.Fatalf("step %d: the kept View differs from a fresh one:\n%s\n---\n%s", i, got, want)
		}
	}
}
