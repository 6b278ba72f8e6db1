package app

import (
	"strings"

	"exo/views"
)

// The screen is composed again on every frame, and most of its lines are the lines of the frame
// before. These joins do what lipgloss.JoinVertical(lipgloss.Left, …) and
// lipgloss.JoinHorizontal(lipgloss.Top, …) do, measuring lines through views.Width, which
// remembers the widths of lines already drawn.

// joinColumn stacks blocks, padding every line with spaces to the widest line.
func joinColumn(blocks ...string) string {
	var lines []string
	for _, b := range blocks {
		lines = append(lines, strings.Split(b, "\n")...)
	}
	widths, most := lineWidths(lines)
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
		pad(&b, most-widths[i])
	}
	return b.String()
}

// joinRow sets blocks side by side, top-aligned: each block's lines are padded to its widest
// line, and a shorter block is continued with blank lines.
func joinRow(blocks ...string) string {
	cols := make([][]string, len(blocks))
	widths := make([][]int, len(blocks))
	most := make([]int, len(blocks))
	height := 0
	for i, b := range blocks {
		cols[i] = strings.Split(b, "\n")
		widths[i], most[i] = lineWidths(cols[i])
		height = max(height, len(cols[i]))
	}
	var b strings.Builder
	for y := range height {
		if y > 0 {
			b.WriteByte('\n')
		}
		for i, col := range cols {
			w := 0
			if y < len(col) {
				b.WriteString(col[y])
				w = widths[i][y]
			}
			pad(&b, most[i]-w)
		}
	}
	return b.String()
}

// lineWidths returns the width of each line and the widest.
func lineWidths(lines []string) ([]int, int) {
	ws := make([]int, len(lines))
	most := 0
	for i, l := range lines {
		ws[i] = views.Width(l)
		most = max(most, ws[i])
	}
	return ws, most
}

// pad writes n spaces.
func pad(b *strings.Builder, n int) {
	if n > 0 {
		b.WriteString(strings.Repeat(" ", n))
	}
}
