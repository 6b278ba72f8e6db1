package views

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/themes"
)

// TestPickerFilterAndChoose: typing filters on every word (name, prompt, directory, id), ↑/↓
// stay in the list, backspace widens the filter again, enter answers the selected session,
// esc answers nothing, and enter with no match does nothing.
func TestPickerFilterAndChoose(t *testing.T) {
	p := NewPicker(NewCommon(themes.Dark()))
	p.SetSize(100, 20)
	p.SetRows(samplePickerRows())
	if got := p.Matches(); len(got) != 5 || p.Selected() != "a1b2c3d4e5f6" {
		t.Fatalf("unfiltered: %q, selected %q", got, p.Selected())
	}
	for _, k := range "BENCH" {
		p.Update(tea.KeyPressMsg{Code: k, Text: string(k)})
	}
	if got := p.Matches(); !slices.Equal(got, []string{"c3d4e5f6a1b2", "e5f6a1b2c3d4"}) {
		t.Fatalf("bench: %q", got)
	}
	p.Update(press("down"))
	p.Update(press("down"))
	p.Update(press("down"))
	if p.Selected() != "e5f6a1b2c3d4" {
		t.Fatalf("down past the end: %q", p.Selected())
	}
	p.Update(tea.PasteMsg{Content: " web\x1b[31m\n"})
	if p.Filter() != "BENCH web[31m" || len(p.Matches()) != 0 {
		t.Fatalf("paste: filter %q, matches %q", p.Filter(), p.Matches())
	}
	if _, cmd := p.Update(press("enter")); cmd != nil {
		t.Fatal("enter with nothing matching answered")
	}
	if !strings.Contains(ansi.Strip(p.View()), "no session matches") {
		t.Fatalf("no match not said:\n%s", ansi.Strip(p.View()))
	}
	for range "[31m" {
		p.Update(press("backspace"))
	}
	if got := p.Matches(); !slices.Equal(got, []string{"e5f6a1b2c3d4"}) {
		t.Fatalf("bench web: %q", got)
	}
	p.Update(press("ctrl+u"))
	for _, k := range "retry" {
		p.Update(tea.KeyPressMsg{Code: k, Text: string(k)})
	}
	_, cmd := p.Update(press("enter"))
	if msg, ok := cmd().(PickedMsg); !ok || msg.ID != "b2c3d4e5f6a1" {
		t.Fatalf("enter on a prompt's word: %#v", cmd())
	}
	_, cmd = p.Update(press("esc"))
	if msg, ok := cmd().(PickedMsg); !ok || msg.ID != "" {
		t.Fatalf("esc: %#v", cmd())
	}
}

// TestPickerScrollsToSelection: with more sessions than rows, the selected one stays on screen.
func TestPickerScrollsToSelection(t *testing.T) {
	p := NewPicker(NewCommon(themes.Dark()))
	p.SetSize(80, 8)
	var rows []PickerRow
	for i := range 30 {
		rows = append(rows, PickerRow{ID: string(rune('a'+i%26)) + strings.Repeat("x", i/26+1), Name: "session-" + strings.Repeat("z", i%3) + string(rune('a'+i%26))})
	}
	p.SetRows(rows)
	for range 20 {
		p.Update(press("down"))
	}
	want := rows[20].Name
	if v := ansi.Strip(p.View()); !strings.Contains(v, want) {
		t.Fatalf("%s is not on screen:\n%s", want, v)
	}
	p.Update(press("pgup"))
	p.Update(press("pgup"))
	p.Update(press("pgup"))
	p.Update(press("pgup"))
	p.Update(press("pgup"))
	if v := ansi.Strip(p.View()); p.Selected() != rows[0].ID || !strings.Contains(v, rows[0].Name) {
		t.Fatalf("pgup to the top: %q\n%s", p.Selected(), v)
	}
}

// TestPickerFilterEditsInPlace: the filter is a text field (bubbles' textinput): the cursor
// moves with ←/→ and typing goes where it is, ctrl+w drops a word, and the line shows the text
// in order with the cursor on its character.
func TestPickerFilterEditsInPlace(t *testing.T) {
	p := NewPicker(NewCommon(themes.Dark()))
	p.SetSize(100, 20)
	p.SetRows(samplePickerRows())
	for _, k := range "web bnch" {
		p.Update(tea.KeyPressMsg{Code: k, Text: string(k)})
	}
	p.Update(tea.KeyPressMsg{Code: tea.KeyLeft})
	p.Update(tea.KeyPressMsg{Code: tea.KeyLeft})
	p.Update(tea.KeyPressMsg{Code: tea.KeyLeft})
	p.Update(tea.KeyPressMsg{Code: 'e', Text: "e"})
	if p.Filter() != "web bench" || !slices.Equal(p.Matches(), []string{"e5f6a1b2c3d4"}) {
		t.Fatalf("typed in the middle: %q, matches %q", p.Filter(), p.Matches())
	}
	if !strings.Contains(ansi.Strip(p.View()), "› web bench") {
		t.Fatalf("filter line:\n%s", ansi.Strip(p.View()))
	}
	p.Update(tea.KeyPressMsg{Code: tea.KeyEnd})
	p.Update(press("ctrl+w"))
	if p.Filter() != "web " || len(p.Matches()) == 0 {
		t.Fatalf("ctrl+w: %q, matches %q", p.Filter(), p.Matches())
	}
}
