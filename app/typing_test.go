package app

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestTypingGoesToThePrompt: words typed while the conversation has focus land in the prompt
// whole ("sleep again" used to scroll, then focus the prompt at its i and leave "n" there); a
// pane's own keys act with alt; ? on an empty prompt lists the keys, in a draft it is text.
func TestTypingGoesToThePrompt(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	typeText := func(s string) {
		for _, r := range s {
			m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
	}
	for _, f := range []focusID{focusConv, focusSiblings, focusSandbox} {
		m.input.SetValue("")
		m.setFocus(f)
		typeText("sleep again")
		if m.focus != focusInput || m.input.Value() != "sleep again" {
			t.Fatalf("typed in pane %d: focus %d, prompt %q; want the prompt to hold the words", f, m.focus, m.input.Value())
		}
	}
	m.input.SetValue("")
	m.setFocus(focusConv)
	m.Update(tea.KeyPressMsg{Code: 'k', Mod: tea.ModAlt}) // the conversation's own k, with alt: scroll
	if m.focus != focusConv || m.input.Value() != "" {
		t.Fatalf("alt+k went to the prompt: focus %d, prompt %q", m.focus, m.input.Value())
	}
	m.setFocus(focusTimeline)
	typeText("fork it") // f is the timeline's key, yet typed it is text
	if m.focus != focusInput || m.input.Value() != "fork it" || m.overlay != nil {
		t.Fatalf("typing on the timeline: focus %d, prompt %q, dialog %v", m.focus, m.input.Value(), m.overlay != nil)
	}
	m.input.SetValue("")
	m.setFocus(focusInput)
	m.Update(tea.KeyPressMsg{Code: '?', Text: "?"})
	if m.overlay == nil || m.input.Value() != "" {
		t.Fatalf("? on an empty prompt did not list the keys (prompt %q)", m.input.Value())
	}
	m.overlay = nil
	typeText("why?")
	if m.overlay != nil || m.input.Value() != "why?" {
		t.Fatalf("? in a draft is not text: prompt %q", m.input.Value())
	}
}
