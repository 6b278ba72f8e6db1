package app

// rect is a pane's place on screen.
type rect struct{ x, y, w, h int }

// layout holds the rectangles of every pane, computed once per resize, top-down.
type layout struct {
	conv, input, timeline, siblings, sandbox rect
	// plan is the agent's checklist between the conversation and the input (0 rows when none).
	plan rect
	// narrow means only one side pane is shown at a time (the focused one, else the timeline).
	narrow bool
	status rect
}

// inputHeight is the input pane's usual height, frame included; it grows with a long prompt.
const inputHeight = 5

// computeLayout splits a terminal of w×h cells: conversation and input on the left, timeline,
// siblings and sandbox stacked on the right; on small terminals the side column collapses.
// inputH gives the height the input wants at a width (nil: the usual height); planH the rows
// the plan view wants out of at most a third of the conversation's (nil: none).
func computeLayout(w, h int, inputH func(w int) int, planH func(maxRows int) int) layout {
	var l layout
	body := max(h-1, 0)
	l.status = rect{0, body, w, 1}
	if inputH == nil {
		inputH = func(int) int { return inputHeight }
	}
	if planH == nil {
		planH = func(int) int { return 0 }
	}
	if w < 100 || body < 18 {
		return narrowLayout(w, body, min(inputH(w), max(body/3, inputHeight)), planH)
	}
	left := w * 58 / 100
	right := w - left
	inH := min(inputH(left), max(body/3, inputHeight))
	above := max(body-inH, 0)
	pl := planH(above / 3)
	l.conv = rect{0, 0, left, above - pl}
	l.plan = rect{0, l.conv.h, left, pl}
	l.input = rect{0, above, left, body - above}
	tl := body * 45 / 100
	sib := body * 25 / 100
	l.timeline = rect{left, 0, right, tl}
	l.siblings = rect{left, tl, right, sib}
	l.sandbox = rect{left, tl + sib, right, body - tl - sib}
	return l
}

// narrowLayout stacks the conversation over a side pane, the plan and the input.
func narrowLayout(w, body, inputH int, planH func(maxRows int) int) layout {
	l := layout{narrow: true, status: rect{0, body, w, 1}}
	in := min(inputH, max(body/3, 3))
	side := 0
	if body-in >= 14 {
		side = (body - in) * 40 / 100
	}
	pl := planH(max(body-in-side, 0) / 3)
	convH := max(body-in-side-pl, 0)
	l.conv = rect{0, 0, w, convH}
	l.timeline = rect{0, convH, w, side}
	l.siblings, l.sandbox = l.timeline, l.timeline
	l.plan = rect{0, convH + side, w, pl}
	l.input = rect{0, convH + side + pl, w, body - convH - side - pl}
	return l
}
