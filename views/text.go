package views

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// ellipsis is the tail added to cut text.
const ellipsis = "…"

// truncate cuts s to at most w cells, marking the cut with an ellipsis.
func truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if Width(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, ellipsis)
}

// fit cuts or pads s to exactly w cells, measuring s once when it fits.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := Width(s)
	if sw > w {
		s = ansi.Truncate(s, w, ellipsis)
		sw = Width(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// fitLeft right-aligns s in exactly w cells.
func fitLeft(s string, w int) string {
	s = truncate(s, w)
	if pad := w - ansi.StringWidth(s); pad > 0 {
		s = strings.Repeat(" ", pad) + s
	}
	return s
}

// wrap breaks s into lines of at most w cells, breaking words that do not fit.
func wrap(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	return strings.Split(ansi.Wrap(s, w, ""), "\n")
}

// oneLine flattens s to a single line for summaries.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r", "")
	s = strings.ReplaceAll(s, "\t", "  ")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}

// block pads or cuts lines to exactly w×h cells.
func block(lines []string, w, h int) string {
	var b strings.Builder
	for i := 0; i < h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		line := ""
		if i < len(lines) {
			line = lines[i]
		}
		b.WriteString(fit(line, w))
	}
	return b.String()
}

// widthOf is the display width of s.
func widthOf(s string) int { return Width(s) }

// stripToPlain removes all escape sequences so s can be restyled.
func stripToPlain(s string) string { return ansi.Strip(s) }

// plain removes every escape sequence and control character: for names and
// labels that come from outside (tool names, summaries, session names).
func plain(s string) string { return stripToPlain(Sanitize(s)) }

// spaces is a run of blanks for padding without allocating.
const spaces = "                                                                                "

// writeFit writes s cut or padded to exactly w cells.
func writeFit(b *strings.Builder, s string, w int) {
	sw := Width(s)
	if sw > w {
		s = ansi.Truncate(s, w, ellipsis)
		sw = Width(s)
	}
	b.WriteString(s)
	for pad := w - sw; pad > 0; pad -= len(spaces) {
		b.WriteString(spaces[:min(pad, len(spaces))])
	}
}
