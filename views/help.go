package views

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Help is the "?" overlay: the full key help of the focused pane and the
// global keys, rendered with bubbles/help.
type Help struct {
	base
	title string
	pane  help.KeyMap
	close key.Binding
}

// NewHelp returns the help overlay.
func NewHelp(c *Common) *Help {
	return &Help{base: base{common: c, focused: true},
		close: key.NewBinding(key.WithKeys("esc", "?", "q"), key.WithHelp("esc", "close help"))}
}

// SetKeyMap sets the focused pane whose keys are shown, and its name.
func (h *Help) SetKeyMap(title string, km help.KeyMap) { h.title, h.pane = title, km }

// Update closes the overlay on esc, ? or q.
func (h *Help) Update(msg tea.Msg) (Pane, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, h.close) {
		return h, emit(CloseOverlay{})
	}
	return h, nil
}

// View renders the pane's keys, then the global keys, in a box sized to
// its content within the overlay's size.
func (h *Help) View() string {
	w, _ := h.inner()
	m := help.New()
	m.Styles = h.styles().Help
	m.SetWidth(w - 1)
	st := h.styles()
	var body []string
	if h.pane != nil {
		body = append(body, st.Pane.TitleFocused.Render(orDash(h.title)))
		body = append(body, strings.Split(m.FullHelpView(h.pane.FullHelp()), "\n")...)
		body = append(body, "")
	}
	body = append(body, st.Pane.TitleFocused.Render("Global"))
	body = append(body, strings.Split(m.FullHelpView(h.common.Keys.FullHelp()), "\n")...)
	fr := *st
	fr.Pane.BorderFocused, fr.Pane.TitleFocused = st.Modal.Frame, st.Modal.Title
	cw := 24
	for _, l := range body {
		cw = max(cw, widthOf(l))
	}
	return frame(&fr, true, "Keys", "esc closes", body, min(cw+3, h.width), min(len(body)+2, h.height))
}

// ShortHelp lists the close binding.
func (h *Help) ShortHelp() []key.Binding { return []key.Binding{h.close} }

// FullHelp lists the close binding.
func (h *Help) FullHelp() [][]key.Binding { return [][]key.Binding{{h.close}} }
