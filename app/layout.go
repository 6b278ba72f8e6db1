package app

// rect is a pane's place on screen.
type rect struct{ x, y, w, h int }

// layout holds the rectangles of every pane, computed once per resize, top-down.
type layout struct {
	conv, input, timeline, siblings, sandbox rect
	// narrow means only one side pane is shown at a time (the focused one, else the timeline).
	narrow bool
	status rect
}

// inputHeight is the input pane's height, frame included.
const inputHeight = 5

// computeLayout splits a terminal of w×h cells: conversation and input on the left, timeline,
// siblings and sandbox stacked on the right; on small terminals the side column collapses.
func computeLayout(w, h int) layout {
	var l layout
	body := max(h-1, 0)
	l.status = rect{0, body, w, 1}
	if w < 100 || body < 18 {
		return narrowLayout(w, body)
	}
	left := w * 58 / 100
	right := w - left
	l.conv = rect{0, 0, left, max(body-inputHeight, 0)}
	l.input = rect{0, l.conv.h, left, body - l.conv.h}
	tl := body * 45 / 100
	sib := body * 25 / 100
	l.timeline = rect{left, 0, right, tl}
	l.siblings = rect{left, tl, right, sib}
	l.sandbox = rect{left, tl + sib, right, body - tl - sib}
	return l
}

// narrowLayout stacks the conversation over a side pane and the input.
func narrowLayout(w, body int) layout {
	l := layout{narrow: true, status: rect{0, body, w, 1}}
	in := min(inputHeight, max(body/3, 3))
	side := 0
	if body-in >= 14 {
		side = (body - in) * 40 / 100
	}
	convH := max(body-in-side, 0)
	l.conv = rect{0, 0, w, convH}
	l.timeline = rect{0, convH, w, side}
	l.siblings, l.sandbox = l.timeline, l.timeline
	l.input = rect{0, convH + side, w, body - convH - side}
	return l
}
