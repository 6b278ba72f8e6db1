package views

import (
	"strings"

	"charm.land/lipgloss/v2"

	"exo/themes"
)

// dialog renders a bordered box of at most w×h cells around body lines,
// sized to its content, with the title in the top border.
func dialog(st *themes.Styles, title string, body []string, w, h int) string {
	inner := 0
	for _, l := range body {
		inner = max(inner, widthOf(l))
	}
	inner = max(min(inner+2, w-2), min(widthOf(title)+4, w-2))
	bw, bh := inner+2, min(len(body)+2, h)
	padded := make([]string, len(body))
	for i, l := range body {
		padded[i] = " " + truncate(l, max(inner-2, 0))
	}
	m := *st
	m.Pane.BorderFocused, m.Pane.TitleFocused = st.Modal.Frame, st.Modal.Title
	return frame(&m, true, title, "", padded, bw, bh)
}

// buttons renders choices in a row with the selected one highlighted.
func buttons(st *themes.Styles, labels []string, sel int) string {
	parts := make([]string, len(labels))
	for i, l := range labels {
		style := st.Modal.Button
		if i == sel {
			style = st.Modal.Active
		}
		parts[i] = style.Render(" " + l + " ")
	}
	return strings.Join(parts, " ")
}

// wrapStyled wraps text to w cells and styles each line.
func wrapStyled(style lipgloss.Style, text string, w int) []string {
	var out []string
	for _, p := range strings.Split(Sanitize(text), "\n") {
		for _, l := range wrap(p, max(w, 1)) {
			out = append(out, style.Render(l))
		}
	}
	return out
}
