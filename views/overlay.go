package views

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Overlay draws fg centred over bg (both blocks of lines) and returns the
// result, as wide and tall as bg. The app uses it to show modals.
func Overlay(bg, fg string) string {
	bgl, fgl := strings.Split(bg, "\n"), strings.Split(fg, "\n")
	bw := 0
	for _, l := range bgl {
		bw = max(bw, ansi.StringWidth(l))
	}
	fw := 0
	for _, l := range fgl {
		fw = max(fw, ansi.StringWidth(l))
	}
	x0, y0 := max((bw-fw)/2, 0), max((len(bgl)-len(fgl))/2, 0)
	for i, l := range fgl {
		y := y0 + i
		if y >= len(bgl) {
			break
		}
		l = truncate(l, bw-x0)
		row := fit(bgl[y], bw)
		lw := ansi.StringWidth(l)
		left, right := cutExact(row, 0, x0, false), cutExact(row, x0+lw, bw, true)
		bgl[y] = left + "\x1b[m" + l + "\x1b[m" + right
	}
	return strings.Join(bgl, "\n")
}

// cutExact cuts cells [from, to) of s to exactly to-from cells: a wide
// character cut in half is replaced by a space on the cut side (the start
// when padStart, else the end), so columns stay where they were.
func cutExact(s string, from, to int, padStart bool) string {
	want := max(to-from, 0)
	out := ansi.Cut(s, from, to)
	if w := ansi.StringWidth(out); w > want {
		// Cut keeps a wide character straddling its start; drop it whole.
		for n := w - want; n <= w; n++ {
			if t := ansi.TruncateLeft(out, n, ""); ansi.StringWidth(t) <= want {
				out = t
				break
			}
		}
	}
	if ansi.StringWidth(out) > want {
		out = ansi.Truncate(out, want, "")
	}
	pad := strings.Repeat(" ", max(want-ansi.StringWidth(out), 0))
	if padStart {
		return pad + out
	}
	return out + pad
}
