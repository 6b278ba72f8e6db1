package views

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// lineInput is a one-line text field for a filter: bubbles' textinput does the editing (typing,
// pastes, backspace, ctrl+w, ctrl+u, ctrl+k, the cursor moved with ←/→, home/end, ctrl+a/e),
// while the pane keeps ↑/↓, tab, enter and esc for itself and draws the text, so that a filter
// looks as the pane's other text does. The field has no blinking cursor (no timer runs while it
// is open) and no ctrl+v: a terminal's paste arrives as a PasteMsg.
type lineInput struct {
	m textinput.Model
}

// newLineInput returns an empty, focused field.
func newLineInput() lineInput {
	m := textinput.New()
	m.SetVirtualCursor(false)
	m.KeyMap.Paste = key.NewBinding(key.WithDisabled())
	m.KeyMap.AcceptSuggestion = key.NewBinding(key.WithDisabled())
	m.KeyMap.NextSuggestion = key.NewBinding(key.WithDisabled())
	m.KeyMap.PrevSuggestion = key.NewBinding(key.WithDisabled())
	m.Focus()
	return lineInput{m: m}
}

// Update edits the text with a key press or a paste and reports whether the text changed. A
// paste's line ends are dropped (textinput would make them spaces): a filter is one line.
func (l *lineInput) Update(msg tea.Msg) bool {
	if p, ok := msg.(tea.PasteMsg); ok {
		p.Content = strings.NewReplacer("\r", "", "\n", "").Replace(p.Content)
		msg = p
	}
	before := l.m.Value()
	l.m, _ = l.m.Update(msg)
	return l.m.Value() != before
}

// Value returns the text.
func (l *lineInput) Value() string { return l.m.Value() }

// SetValue replaces the text and puts the cursor at its end.
func (l *lineInput) SetValue(s string) {
	l.m.SetValue(s)
	l.m.CursorEnd()
}

// Split returns the text before the cursor, the character under it ("" at the end) and the
// text after it, for the pane to draw with its cursor.
func (l *lineInput) Split() (before, at, after string) {
	r := []rune(l.m.Value())
	pos := min(l.m.Position(), len(r))
	if pos == len(r) {
		return string(r), "", ""
	}
	return string(r[:pos]), string(r[pos]), string(r[pos+1:])
}
