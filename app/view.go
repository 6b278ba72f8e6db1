package app

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/views"
)

// resize recomputes the layout and gives every pane its size.
func (m *Model) resize() {
	m.lay = computeLayout(m.width, m.height, m.input.Height, m.planRows)
	l := m.lay
	if m.overlay != nil {
		m.overlay.SetSize(min(m.width, max(m.width*3/4, 60)), min(m.height, max(m.height*3/4, 16)))
	}
	if m.zoom {
		full := rect{0, 0, m.width, max(m.height-1, 0)}
		m.pane(m.focus).SetSize(full.w, full.h)
		m.status.SetWidth(m.width)
		return
	}
	m.conv.SetSize(l.conv.w, l.conv.h)
	m.split.SetSize(l.conv.w, l.conv.h)
	m.input.SetSize(l.input.w, l.input.h)
	m.plan.SetSize(l.plan.w, l.plan.h)
	m.timeline.SetSize(l.timeline.w, l.timeline.h)
	m.siblings.SetSize(l.siblings.w, l.siblings.h)
	m.sandbox.SetSize(l.sandbox.w, l.sandbox.h)
	m.status.SetWidth(m.width)
}

// sidePane returns the side pane shown in the narrow layout: the focused one, else the timeline.
func (m *Model) sidePane() views.Pane {
	switch m.focus {
	case focusSiblings, focusSandbox, focusTimeline:
		return m.pane(m.focus)
	}
	return m.timeline
}

// View renders the whole screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.sel.paint(m.render()))
	v.AltScreen = true
	if m.mouse {
		// On by default, as in Crush: the wheel scrolls the pane under the pointer, a click
		// focuses it, and a drag selects text that is copied (or shift+drag lets the terminal).
		v.MouseMode = tea.MouseModeCellMotion
	}
	v.ReportFocus = true // notifications go out only while the terminal is not focused
	v.WindowTitle = "exo"
	if m.session != nil {
		v.WindowTitle = "exo · " + m.session.Name
	}
	return v
}

// render composes the panes into the screen.
func (m *Model) render() string {
	if m.width == 0 || m.height == 0 {
		return ""
	}
	m.input.SetTarget("")
	if m.splitOn && m.session != nil {
		m.input.SetTarget(m.session.Name) // several sessions on screen: say which one gets the prompt
	}
	var body string
	switch {
	case m.zoom:
		body = m.pane(m.focus).View()
	case m.lay.narrow:
		main := m.pane(focusConv).View()
		if m.lay.timeline.h == 0 && m.focus >= focusTimeline {
			main = m.sidePane().View() // no room for both: the focused pane replaces the conversation
		}
		parts := []string{main}
		if m.lay.timeline.h > 0 {
			parts = append(parts, m.sidePane().View())
		}
		if m.lay.plan.h > 0 {
			parts = append(parts, m.plan.View())
		}
		parts = append(parts, m.input.View())
		body = joinColumn(parts...)
	default:
		lefts := []string{m.pane(focusConv).View()}
		if m.lay.plan.h > 0 {
			lefts = append(lefts, m.plan.View())
		}
		left := joinColumn(append(lefts, m.input.View())...)
		right := joinColumn(m.timeline.View(), m.siblings.View(), m.sandbox.View())
		body = joinRow(left, right)
	}
	m.status.SetInfo(m.info)
	if hints := m.pane(m.focus).ShortHelp(); m.focus == focusInput {
		m.status.SetHints(hints)
	} else {
		m.status.SetHints(altHelp(hints))
	}
	screen := fitScreen(body, m.width, max(m.height-1, 0)) + "\n" + m.status.View()
	if d := m.storeDown; d != nil && m.height > 1 { // over the top line: the layout stays put
		_, rest, _ := strings.Cut(screen, "\n")
		screen = views.StoreBanner(m.common, m.width, d.Since, d.Why) + "\n" + rest
	}
	if m.focus == focusInput && !m.zoom {
		if pop := m.input.PopupView(m.lay.input.w); pop != "" {
			screen = overlayAt(screen, pop, m.lay.input.x, m.lay.input.y)
		}
	}
	if m.overlay != nil {
		screen = views.Overlay(screen, m.overlay.View())
	}
	return screen
}

// fitScreen makes body exactly w×h cells so nothing wraps or scrolls the terminal.
func fitScreen(body string, w, h int) string {
	lines := strings.Split(body, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		if lw := views.Width(l); lw > w {
			lines[i] = ansi.Truncate(l, w, "")
		} else if lw < w {
			lines[i] = l + strings.Repeat(" ", w-lw)
		}
	}
	for len(lines) < h {
		lines = append(lines, strings.Repeat(" ", w))
	}
	return strings.Join(lines, "\n")
}

// overlayAt draws the block fg over screen so that its bottom line sits just above row y,
// starting at column x (the slash-command popup above the input).
func overlayAt(screen, fg string, x, y int) string {
	rows := strings.Split(screen, "\n")
	lines := strings.Split(fg, "\n")
	top := max(y-len(lines), 0)
	for i, l := range lines {
		r := top + i
		if r >= len(rows) || r >= y {
			break
		}
		w := ansi.StringWidth(rows[r])
		lw := ansi.StringWidth(l)
		rows[r] = ansi.Cut(rows[r], 0, x) + "\x1b[m" + l + "\x1b[m" + ansi.Cut(rows[r], x+lw, w)
	}
	return strings.Join(rows, "\n")
}
