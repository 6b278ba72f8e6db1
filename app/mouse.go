package app

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/views"
)

// selection is a stretch of text the user drags over with the mouse in one pane, as Crush keeps
// its own: captured mouse reports would otherwise take the terminal's selection away. It is
// drawn reversed and, when the button is let go, copied to the clipboard (OSC 52).
type selection struct {
	// on is set from a press until the next press or key; dragging while the button is down.
	on, dragging bool
	// in is the pane's inner rectangle (its frame left out); the ends are clamped to it.
	in rect
	// ax, ay is where the press was; bx, by where the pointer is.
	ax, ay, bx, by int
}

// paneAt returns the focusable pane under the cell (x, y) and its rectangle.
func (m *Model) paneAt(x, y int) (focusID, rect, bool) {
	if m.zoom {
		return m.focus, rect{0, 0, m.width, max(m.height-1, 0)}, true
	}
	for _, c := range []struct {
		f focusID
		r rect
	}{{focusConv, m.lay.conv}, {focusInput, m.lay.input}, {focusTimeline, m.lay.timeline}, {focusSiblings, m.lay.siblings}, {focusSandbox, m.lay.sandbox}} {
		if c.r.w > 0 && c.r.h > 0 && x >= c.r.x && x < c.r.x+c.r.w && y >= c.r.y && y < c.r.y+c.r.h {
			return c.f, c.r, true
		}
	}
	return 0, rect{}, false
}

// inner is a pane's rectangle without its one-cell frame.
func inner(r rect) rect {
	if r.w < 3 || r.h < 3 {
		return r
	}
	return rect{r.x + 1, r.y + 1, r.w - 2, r.h - 2}
}

// clamp keeps a cell inside r.
func (r rect) clamp(x, y int) (int, int) {
	return min(max(x, r.x), r.x+r.w-1), min(max(y, r.y), r.y+r.h-1)
}

// onClick focuses the pane under the pointer (an open dialog keeps the focus) and starts a
// selection there with the left button.
func (m *Model) onClick(msg tea.MouseClickMsg) tea.Cmd {
	mo := msg.Mouse()
	m.sel = selection{}
	if m.overlay != nil {
		return nil
	}
	f, r, ok := m.paneAt(mo.X, mo.Y)
	if !ok {
		return nil
	}
	if f != m.focus && !m.zoom {
		m.setFocus(f)
	}
	if mo.Button == tea.MouseLeft {
		in := inner(r)
		x, y := in.clamp(mo.X, mo.Y)
		m.sel = selection{on: true, dragging: true, in: in, ax: x, ay: y, bx: x, by: y}
	}
	return nil
}

// onMotion moves the selection's end while the button is held.
func (m *Model) onMotion(msg tea.MouseMotionMsg) tea.Cmd {
	if !m.sel.dragging {
		return nil
	}
	mo := msg.Mouse()
	m.sel.bx, m.sel.by = m.sel.in.clamp(mo.X, mo.Y)
	return nil
}

// onRelease ends a drag: a selection of at least one character is copied to the clipboard.
func (m *Model) onRelease(msg tea.MouseReleaseMsg) tea.Cmd {
	if !m.sel.dragging {
		return nil
	}
	mo := msg.Mouse()
	m.sel.bx, m.sel.by = m.sel.in.clamp(mo.X, mo.Y)
	m.sel.dragging = false
	if m.sel.ax == m.sel.bx && m.sel.ay == m.sel.by {
		m.sel = selection{} // a click, not a selection
		return nil
	}
	text := m.sel.text(strings.Split(m.render(), "\n"))
	if strings.TrimSpace(text) == "" {
		m.sel = selection{}
		return nil
	}
	lines := strings.Count(text, "\n") + 1
	return tea.Batch(tea.SetClipboard(text), m.say(fmt.Sprintf("copied the selection (%s) to the clipboard (OSC 52)", views.Plural(lines, "line")), false))
}

// ordered returns the selection's ends in reading order.
func (s selection) ordered() (x0, y0, x1, y1 int) {
	if s.by < s.ay || (s.by == s.ay && s.bx < s.ax) {
		return s.bx, s.by, s.ax, s.ay
	}
	return s.ax, s.ay, s.bx, s.by
}

// span returns the columns [a, b) the selection covers on row y, within its pane.
func (s selection) span(y int) (int, int, bool) {
	x0, y0, x1, y1 := s.ordered()
	if y < y0 || y > y1 {
		return 0, 0, false
	}
	a, b := s.in.x, s.in.x+s.in.w
	if y == y0 {
		a = x0
	}
	if y == y1 {
		b = x1 + 1
	}
	return a, b, a < b
}

// text is what the selection covers on the screen's rows, each row's trailing blanks cut.
func (s selection) text(rows []string) string {
	var out []string
	for y := range rows {
		a, b, ok := s.span(y)
		if !ok {
			continue
		}
		out = append(out, strings.TrimRight(ansi.Strip(ansi.Cut(rows[y], a, b)), " "))
	}
	return strings.Join(out, "\n")
}

// paint draws the selection reversed over the screen.
func (s selection) paint(screen string) string {
	if !s.on {
		return screen
	}
	rows := strings.Split(screen, "\n")
	for y, row := range rows {
		a, b, ok := s.span(y)
		if !ok {
			continue
		}
		w := ansi.StringWidth(row)
		mid := ansi.Strip(ansi.Cut(row, a, b))
		rows[y] = ansi.Cut(row, 0, a) + "\x1b[7m" + mid + "\x1b[m" + ansi.Cut(row, b, w)
	}
	return strings.Join(rows, "\n")
}
