package views

import (
	"strings"
	"sync"

	"exo/themes"
)

// frame draws a rounded border of exactly w×h cells around body, with title
// on the top-left and info on the top-right; body lines are cut to fit.
func frame(st *themes.Styles, focused bool, title, info string, body []string, w, h int) string {
	if w < 4 || h < 3 {
		return block(body, w, h)
	}
	iw := w - 2
	side, top, bottom := frameEdges(st, focused, title, info, iw)
	size := len(top) + len(bottom) + (h-2)*(2*len(side)+iw+5)
	for i := 0; i < h-2 && i < len(body); i++ {
		size += len(body[i])
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(top)
	for i := 0; i < h-2; i++ {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		b.WriteByte('\n')
		b.WriteString(side)
		writeFit(&b, line, iw)
		b.WriteString("\x1b[m")
		b.WriteString(side)
	}
	b.WriteByte('\n')
	b.WriteString(bottom)
	return b.String()
}

// edgeKey identifies a pane frame's edges.
type edgeKey struct {
	st          *themes.Styles
	focused     bool
	title, info string
	iw          int
}

// edges holds a frame's rendered side, top and bottom.
type edges struct{ side, top, bottom string }

// edgeMemo remembers the edges of the frames drawn lately: every frame draws every pane's
// frame, and styling them is a good part of a frame's cost.
var edgeMemo struct {
	sync.Mutex
	m map[edgeKey]edges
}

// frameEdges returns the side, top and bottom of a frame iw cells wide inside.
func frameEdges(st *themes.Styles, focused bool, title, info string, iw int) (string, string, string) {
	k := edgeKey{st, focused, title, info, iw}
	edgeMemo.Lock()
	e, ok := edgeMemo.m[k]
	edgeMemo.Unlock()
	if ok {
		return e.side, e.top, e.bottom
	}
	border, tstyle := st.Pane.Border, st.Pane.Title
	if focused {
		border, tstyle = st.Pane.BorderFocused, st.Pane.TitleFocused
	}
	e = edges{border.Render("│"), frameTop(border, tstyle, title, info, iw), border.Render("╰" + strings.Repeat("─", iw) + "╯")}
	edgeMemo.Lock()
	if len(edgeMemo.m) >= 256 || edgeMemo.m == nil {
		edgeMemo.m = map[edgeKey]edges{}
	}
	edgeMemo.m[k] = e
	edgeMemo.Unlock()
	return e.side, e.top, e.bottom
}

// frameTop renders the top border with a title and right-hand info.
func frameTop(border, tstyle interface{ Render(...string) string }, title, info string, iw int) string {
	title = truncate(title, max(iw-2, 0))
	used := 0
	var b strings.Builder
	b.WriteString(border.Render("╭"))
	if title != "" {
		b.WriteString(border.Render("─") + tstyle.Render(title))
		used = 1 + widthOf(title)
	}
	if info != "" {
		info = truncate(info, iw-used-2)
	}
	fill := iw - used
	if info != "" && fill-widthOf(info)-1 >= 1 {
		fill -= widthOf(info) + 1
		b.WriteString(border.Render(strings.Repeat("─", fill)) + tstyle.Render(info) + border.Render("─"))
	} else {
		b.WriteString(border.Render(strings.Repeat("─", max(fill, 0))))
	}
	b.WriteString(border.Render("╮"))
	return b.String()
}
