package views

import "exo/themes/termsafe"

// Sanitize returns s with every escape sequence removed except SGR colour
// and attribute sequences, so content can never act on the terminal: no
// titles, clipboard writes, cursor moves, mode switches or hyperlinks. C0 and
// C1 controls are dropped except newline; tabs become spaces; a carriage
// return keeps only the text after it, as a terminal would show the line. It
// is exo's one sanitizer (themes/termsafe, shared with the sandbox), in
// linear time.
func Sanitize(s string) string { return termsafe.String(s, termsafe.Screen) }

// SanitizeStream is Sanitize for text written to a terminal as it comes (exo's command-line
// output): tabs and carriage returns are kept as they are (a progress line redraws itself with
// one), everything else is as Sanitize does it.
func SanitizeStream(s string) string { return termsafe.String(s, termsafe.Display) }

// onlySGRParams reports whether p holds only digits and separators.
func onlySGRParams(p string) bool {
	for i := 0; i < len(p); i++ {
		if (p[i] < '0' || p[i] > '9') && p[i] != ';' && p[i] != ':' {
			return false
		}
	}
	return true
}
