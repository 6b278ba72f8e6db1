package views

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// CloseOverlay asks the app to close the overlay that sent it.
type CloseOverlay struct{}

// DetailKeyMap holds the event detail overlay's bindings.
type DetailKeyMap struct {
	ScrollKeyMap
	Close key.Binding // Close closes the overlay.
}

// Detail is the overlay showing one event as pretty-printed JSON, or a diff in colour.
type Detail struct {
	base
	Keys  DetailKeyMap // Keys are the overlay's bindings.
	title string
	lines []string
	top   int
}

// NewDetail returns the overlay for an event: a title (e.g. "#42
// tool.completed") and its JSON; invalid JSON is shown as text.
func NewDetail(c *Common, title string, raw []byte) *Detail {
	d := &Detail{base: base{common: c, focused: true}, title: oneLine(plain(title)),
		Keys: DetailKeyMap{ScrollKeyMap: DefaultScrollKeyMap(), Close: key.NewBinding(key.WithKeys("esc", "q", "enter"), key.WithHelp("esc", "close"))}}
	d.lines = d.pretty(raw)
	return d
}

// jsonKeyRE matches an object key at the start of a pretty-printed line.
var jsonKeyRE = regexp.MustCompile(`^(\s*)("(?:[^"\\]|\\.)*")(:)(.*)$`)

// pretty indents the JSON and colours its keys; &, < and > show as themselves.
func (d *Detail) pretty(raw []byte) []string {
	var buf bytes.Buffer
	text := string(raw)
	if json.Indent(&buf, raw, "", "  ") == nil {
		text = string(UnescapeHTML(buf.Bytes())) // & < > as themselves, not \u0026 \u003c \u003e
	} else if isDiff(text) {
		return renderDiff(d.styles(), text, 1<<16) // a conflict diff (d in the sessions pane)
	}
	st := d.styles()
	lines := strings.Split(Sanitize(text), "\n")
	for i, l := range lines {
		if m := jsonKeyRE.FindStringSubmatch(l); m != nil {
			lines[i] = m[1] + st.Modal.JSONKey.Render(m[2]) + m[3] + st.Text.Normal.Render(m[4])
		}
	}
	return lines
}

// isDiff reports whether text holds a unified diff.
func isDiff(text string) bool {
	return strings.HasPrefix(text, "--- ") || strings.HasPrefix(text, "diff ") || strings.Contains(text, "\n@@ ") ||
		strings.Contains(text, "\n--- a/")
}

// Update scrolls and closes.
func (d *Detail) Update(msg tea.Msg) (Pane, tea.Cmd) {
	_, h := d.inner()
	switch msg := msg.(type) {
	case tea.MouseWheelMsg:
		if msg.Button == tea.MouseWheelUp {
			d.scroll(-3)
		} else if msg.Button == tea.MouseWheelDown {
			d.scroll(3)
		}
	case tea.KeyPressMsg:
		k := d.Keys
		switch {
		case key.Matches(msg, k.Close):
			return d, emit(CloseOverlay{})
		case key.Matches(msg, k.Up):
			d.scroll(-1)
		case key.Matches(msg, k.Down):
			d.scroll(1)
		case key.Matches(msg, k.PageUp):
			d.scroll(-h)
		case key.Matches(msg, k.PageDown):
			d.scroll(h)
		case key.Matches(msg, k.Top):
			d.top = 0
		case key.Matches(msg, k.Bottom):
			d.scroll(len(d.lines))
		}
	}
	return d, nil
}

// scroll moves the view by n lines.
func (d *Detail) scroll(n int) {
	_, h := d.inner()
	d.top = min(max(d.top+n, 0), max(len(d.lines)-h, 0))
}

// View renders the visible JSON lines in a frame of the overlay's size.
func (d *Detail) View() string {
	w, h := d.inner()
	end := min(d.top+h, len(d.lines))
	body := make([]string, 0, h)
	for _, l := range d.lines[min(d.top, end):end] {
		body = append(body, truncate(l, w))
	}
	m := *d.styles()
	m.Pane.BorderFocused, m.Pane.TitleFocused = m.Modal.Frame, m.Modal.Title
	return frame(&m, true, d.title, "esc closes", body, d.width, d.height)
}

// ShortHelp lists the overlay's main bindings.
func (d *Detail) ShortHelp() []key.Binding {
	return []key.Binding{d.Keys.Down, d.Keys.Up, d.Keys.Close}
}

// FullHelp lists the overlay's bindings.
func (d *Detail) FullHelp() [][]key.Binding {
	return [][]key.Binding{d.Keys.bindings(), {d.Keys.Close}}
}
