package app

import (
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Typing goes to the prompt, as in Claude Code, Codex and Crush: a key that can be text (a
// printable character with no ctrl or alt) is text wherever the focus is, and the prompt takes
// focus with it, so the words land there whole (typing "sleep again⏎" with the conversation
// focused used to scroll, then focus the prompt at its i and send "n"). The other panes act on
// keys that cannot be text: arrows, enter, esc, PgUp/PgDn, and their letter keys with alt
// (alt+f forks on the timeline, alt+s splits the view from the siblings, alt+z zooms…).

// textMods are the modifiers that make a key press no longer text.
const textMods = tea.ModCtrl | tea.ModAlt | tea.ModMeta | tea.ModSuper | tea.ModHyper

// typedText reports whether a key press is text a user types: printable, with no ctrl or alt.
func typedText(msg tea.KeyPressMsg) bool {
	return msg.Text != "" && msg.Mod&textMods == 0
}

// paneKey turns alt+<character> into the bare character a pane binds (alt+f is the timeline's
// f); it reports false for any other key, which passes as it is.
func paneKey(msg tea.KeyPressMsg) (tea.KeyPressMsg, bool) {
	if msg.Mod&textMods != tea.ModAlt {
		return msg, false
	}
	r, n := utf8.DecodeRuneInString(string(msg.Code))
	if msg.Code < ' ' || msg.Code == 127 || msg.Code > utf8.MaxRune || n == 0 || r == utf8.RuneError {
		return msg, false
	}
	text := string(msg.Code)
	if msg.ShiftedCode != 0 && msg.Mod&tea.ModShift != 0 {
		text = string(msg.ShiftedCode)
	}
	return tea.KeyPressMsg{Code: []rune(text)[0], Text: text}, true
}

// altHelp shows a pane's bindings as they are typed outside the prompt: each key that is a
// character gets alt+ (f → alt+f, ↑/k → ↑/alt+k, n/esc → alt+n/esc).
func altHelp(bs []key.Binding) []key.Binding {
	out := make([]key.Binding, len(bs))
	for i, b := range bs {
		h := b.Help()
		parts := strings.Split(h.Key, "/")
		if h.Key == "/" {
			parts = []string{"/"}
		}
		for j, p := range parts {
			if utf8.RuneCountInString(p) == 1 && p != "↑" && p != "↓" && p != "←" && p != "→" {
				parts[j] = "alt+" + p
			}
		}
		nb := key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(strings.Join(parts, "/"), h.Desc))
		nb.SetEnabled(b.Enabled())
		out[i] = nb
	}
	return out
}

// altKeyMap is a pane's key map as the help overlay lists it outside the prompt (see altHelp).
type altKeyMap struct{ help.KeyMap }

// ShortHelp lists the pane's main bindings with alt+ on its letter keys.
func (a altKeyMap) ShortHelp() []key.Binding { return altHelp(a.KeyMap.ShortHelp()) }

// FullHelp lists all the pane's bindings with alt+ on its letter keys.
func (a altKeyMap) FullHelp() [][]key.Binding {
	cols := a.KeyMap.FullHelp()
	out := make([][]key.Binding, len(cols))
	for i, c := range cols {
		out[i] = altHelp(c)
	}
	return out
}
