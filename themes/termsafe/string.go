package termsafe

import "unicode/utf8"

// String sanitizes the whole of s in mode. Text with nothing to remove is returned as it is,
// without a copy.
func String(s string, mode Mode) string {
	if clean(s, mode) {
		return s
	}
	z := New(mode)
	z.Feed([]byte(s))
	z.end()
	return string(z.out)
}

// clean reports whether s passes through mode unchanged: valid UTF-8 with no control byte but
// newline (and, for Display, tab and carriage return) and no C1 control.
func clean(s string, mode Mode) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n':
		case (c == '\t' || c == '\r') && mode == Display:
		case c == '\t' && mode == Text:
		case c < 0x20 || c == 0x7f:
			return false
		case c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] < 0xa0:
			return false
		}
	}
	return utf8.ValidString(s)
}
