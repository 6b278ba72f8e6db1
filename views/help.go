package views

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// HelpSection is one titled group of keys in the help overlay.
type HelpSection struct {
	Title string      // Title names the pane (or "Global").
	Keys  help.KeyMap // Keys are its bindings.
}

// Help is the "?" overlay: the keys of every pane (the focused one first) and the global keys,
// rendered with bubbles/help; it scrolls when the terminal is too small to show them all.
type Help struct {
	base
	sections []HelpSection
	top      int
	close    key.Binding
	scroll   ScrollKeyMap
}

// NewHelp returns the help overlay.
func NewHelp(c *Common) *Help {
	return &Help{base: base{common: c, focused: true}, scroll: DefaultScrollKeyMap(),
		close: key.NewBinding(key.WithKeys("esc", "?", "q"), key.WithHelp("esc", "close help"))}
}

// SetKeyMap shows one pane's keys, then the global keys.
func (h *Help) SetKeyMap(title string, km help.KeyMap) {
	h.SetSections(HelpSection{Title: title, Keys: km})
}

// SetSections shows these sections, then the global keys.
func (h *Help) SetSections(s ...HelpSection) { h.sections, h.top = s, 0 }

// Update closes the overlay on esc, ? or q and scrolls with the usual keys.
func (h *Help) Update(msg tea.Msg) (Pane, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return h, nil
	}
	_, ih := h.inner()
	page := max(ih-1, 1)
	switch {
	case key.Matches(k, h.close):
		return h, emit(CloseOverlay{})
	case key.Matches(k, h.scroll.Up):
		h.top--
	case key.Matches(k, h.scroll.Down):
		h.top++
	case key.Matches(k, h.scroll.PageUp):
		h.top -= page
	case key.Matches(k, h.scroll.PageDown):
		h.top += page
	case key.Matches(k, h.scroll.Top):
		h.top = 0
	case key.Matches(k, h.scroll.Bottom):
		h.top = len(h.lines(h.width))
	}
	h.top = max(h.top, 0)
	return h, nil
}

// lines renders every section for an overlay w cells wide: the focused pane's first, then the
// global keys (so quitting is always near the top), then the other panes.
func (h *Help) lines(w int) []string {
	m := help.New()
	m.Styles = h.styles().Help
	m.SetWidth(max(w-3, 10))
	st := h.styles()
	global := HelpSection{Title: "Global", Keys: h.common.Keys}
	all := append([]HelpSection{}, h.sections...)
	if len(all) > 0 {
		all = append(all[:1:1], append([]HelpSection{global}, all[1:]...)...)
	} else {
		all = []HelpSection{global}
	}
	var body []string
	for i, s := range all {
		if i > 0 {
			body = append(body, "")
		}
		body = append(body, st.Pane.TitleFocused.Render(orDash(s.Title)))
		body = append(body, strings.Split(m.FullHelpView(s.Keys.FullHelp()), "\n")...)
	}
	return body
}

// View renders the sections in a box sized to its content within the overlay's size, scrolled
// to the current position when they do not fit.
func (h *Help) View() string {
	body := h.lines(h.width)
	st := h.styles()
	fr := *st
	fr.Pane.BorderFocused, fr.Pane.TitleFocused = st.Modal.Frame, st.Modal.Title
	cw := 24
	for _, l := range body {
		cw = max(cw, widthOf(l))
	}
	ih := max(h.height-2, 1)
	info := "esc closes"
	if len(body) > ih {
		h.top = min(h.top, len(body)-ih)
		info = fmt.Sprintf("%d-%d/%d · j/k scroll · esc closes", h.top+1, h.top+ih, len(body))
		body = body[h.top : h.top+ih]
	} else {
		h.top = 0
	}
	w := min(max(cw+3, widthOf(info)+6), h.width)
	return frame(&fr, true, "Keys", info, body, w, min(len(body)+2, h.height))
}

// ShortHelp lists the close binding.
func (h *Help) ShortHelp() []key.Binding { return []key.Binding{h.close} }

// FullHelp lists the close and scroll bindings.
func (h *Help) FullHelp() [][]key.Binding {
	return [][]key.Binding{{h.close}, h.scroll.bindings()}
}
