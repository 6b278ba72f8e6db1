package views

import (
	"strings"
	"unicode/utf8"
)

// Sanitize returns s with every escape sequence removed except SGR colour
// and attribute sequences, so content can never act on the terminal: no
// titles, clipboard writes, cursor moves, mode switches or hyperlinks. C0 and
// C1 controls are dropped except newline; tabs become spaces; a carriage
// return keeps only the text after it, as a terminal would show the line.
func Sanitize(s string) string { return sanitize(s, false) }

// SanitizeStream is Sanitize for text written to a terminal as it comes (exo's command-line
// output): tabs and carriage returns are kept as they are (a progress line redraws itself with
// one), everything else is as Sanitize does it.
func SanitizeStream(s string) string { return sanitize(s, true) }

// sanitize is Sanitize; stream keeps tabs and carriage returns.
func sanitize(s string, stream bool) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	lineStart := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			i = copySGR(&b, s, i)
		case c == '\n':
			b.WriteByte('\n')
			lineStart = b.Len()
			i++
		case stream && (c == '\r' || c == '\t'):
			b.WriteByte(c)
			i++
		case c == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
				continue
			}
			cut := b.String()[:lineStart]
			b.Reset()
			b.WriteString(cut)
			i++
		case c == '\t':
			b.WriteString("    ")
			i++
		case c < 0x20 || c == 0x7f:
			i++
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r >= 0x80 && r <= 0x9f || r == utf8.RuneError && n == 1 {
				i += n
				continue
			}
			b.WriteString(s[i : i+n])
			i += n
		}
	}
	return b.String()
}

// isPlain reports whether s has no control bytes at all.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' || c == 0x7f || c == 0xc2 {
			return false
		}
	}
	return true
}

// copySGR handles the escape sequence at s[i]: an SGR (ESC [ params m) is
// copied, anything else is skipped. It returns the index after the sequence.
func copySGR(b *strings.Builder, s string, i int) int {
	if i+1 >= len(s) {
		return len(s)
	}
	switch s[i+1] {
	case '[':
		j := i + 2
		for j < len(s) && (s[j] >= 0x30 && s[j] <= 0x3f || s[j] >= 0x20 && s[j] <= 0x2f) {
			j++
		}
		if j >= len(s) {
			return len(s)
		}
		if s[j] == 'm' && onlySGRParams(s[i+2:j]) {
			b.WriteString(s[i : j+1])
		}
		return j + 1
	case ']', 'P', '_', '^', 'X':
		return skipString(s, i+2)
	default:
		j := i + 1
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
			j++
		}
		return min(j+1, len(s))
	}
}

// onlySGRParams reports whether p holds only digits and separators.
func onlySGRParams(p string) bool {
	for i := 0; i < len(p); i++ {
		if (p[i] < '0' || p[i] > '9') && p[i] != ';' && p[i] != ':' {
			return false
		}
	}
	return true
}

// skipString skips an OSC/DCS/APC/PM/SOS body up to BEL or ST (ESC \).
func skipString(s string, j int) int {
	for j < len(s) {
		switch {
		case s[j] == 0x07:
			return j + 1
		case s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\':
			return j + 2
		case s[j] == 0x1b:
			return j
		}
		j++
	}
	return len(s)
}
