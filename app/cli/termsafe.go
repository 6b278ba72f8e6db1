package cli

import (
	"bytes"
	"io"
	"unicode/utf8"

	"exo/views"
)

// maxHeld bounds what a termSafe writer holds back of an escape sequence cut by a write's end:
// a longer one is not a sequence a terminal would act on as text, and is dropped.
const maxHeld = 4096

// termSafe passes text to w with every escape sequence but SGR colours removed, and C0 and C1
// controls but newline, tab and carriage return, as the app shows text (views.SanitizeStream):
// what an agent controls (a session's name, an event, a model's answer, a command's output)
// never acts on the user's terminal through exo's command line, whatever exo prints it with.
// JSON output passes unchanged (it holds no control characters). A sequence or UTF-8 character
// cut by the end of a write is held for the next one, so splitting text never lets a piece
// through.
type termSafe struct {
	w    io.Writer
	held []byte
}

// newTermSafe wraps w.
func newTermSafe(w io.Writer) *termSafe { return &termSafe{w: w} }

// Write sanitises p (after what was held) and writes it; it reports p as written whole.
func (t *termSafe) Write(p []byte) (int, error) {
	buf := p
	if len(t.held) > 0 {
		buf = append(t.held, p...)
		t.held = nil
	}
	cut := completeUpTo(buf)
	if rest := buf[cut:]; len(rest) > 0 && len(rest) <= maxHeld {
		t.held = append([]byte(nil), rest...)
	}
	if cut == 0 {
		return len(p), nil
	}
	if _, err := io.WriteString(t.w, views.SanitizeStream(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// completeUpTo returns how much of b is whole: b without a final escape sequence that has not
// ended, or a final UTF-8 character cut short.
func completeUpTo(b []byte) int {
	from := max(0, len(b)-maxHeld)
	if i := bytes.LastIndexByte(b[from:], 0x1b); i >= 0 && !escapeEnded(b[from+i:]) {
		return from + i
	}
	for k := 1; k <= utf8.UTFMax-1 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < utf8.RuneSelf {
			break
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-k:]) {
				return len(b) - k
			}
			break
		}
	}
	return len(b)
}

// escapeEnded reports whether the escape sequence at the start of s is complete: a CSI by its
// final byte, a string (OSC, DCS, APC, PM, SOS) by BEL or ST, any other by its final byte.
func escapeEnded(s []byte) bool {
	if len(s) < 2 {
		return false
	}
	switch s[1] {
	case '[':
		for _, c := range s[2:] {
			if c >= 0x40 && c <= 0x7e {
				return true
			}
		}
		return false
	case ']', 'P', '_', '^', 'X':
		return bytes.IndexByte(s[2:], 0x07) >= 0 || bytes.Contains(s[2:], []byte{0x1b, '\\'})
	default:
		for _, c := range s[1:] {
			if c < 0x20 || c > 0x2f {
				return true
			}
		}
		return false
	}
}
