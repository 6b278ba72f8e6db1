package views

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"exo/themes"
)

// TestSiblingsTakeOverKey: T asks to take over the selected session of a daemon that is gone,
// and says why not on a live, an orphaned or a local row; the help shows T only where it works.
func TestSiblingsTakeOverKey(t *testing.T) {
	p := NewSiblings(NewCommon(themes.Dark()))
	p.SetRows(remoteSiblings())
	p.Focus()
	want := map[string]string{ // by row id: "" can be taken over, else part of the refusal
		"r1": "this daemon's own session",
		"r3": "",
		"r2": "which is alive",
		"r4": "orphaned",
	}
	for i := range p.Rows() {
		r, _ := p.Selected()
		_, cmd := p.Update(tea.KeyPressMsg{Code: 'T', Text: "T"})
		if cmd == nil {
			t.Fatalf("T on %s did nothing", r.Name)
		}
		msg, ok := cmd().(TakeOver)
		if !ok || msg.ID != r.ID {
			t.Fatalf("T on %s: %#v", r.Name, msg)
		}
		if w := want[r.ID]; w == "" && msg.Refused != "" || w != "" && !strings.Contains(msg.Refused, w) {
			t.Fatalf("T on %s: refused %q, want %q", r.Name, msg.Refused, w)
		}
		enabled := false
		for _, b := range p.ShortHelp() {
			enabled = enabled || b.Enabled() && b.Help().Key == "T"
		}
		if enabled != (want[r.ID] == "") {
			t.Fatalf("help shows T on %s: %v", r.Name, enabled)
		}
		if i < len(p.Rows())-1 {
			p.Update(tea.KeyPressMsg{Code: 'j', Text: "j"})
		}
	}
}
