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
		bgl[y] = ansi.Cut(row, 0, x0) + "\x1b[m" + l + "\x1b[m" + ansi.Cut(row, x0+lw, bw)
	}
	return strings.Join(bgl, "\n")
}
