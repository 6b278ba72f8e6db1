package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// hostile are escape sequences an agent could put in text exo prints: the clipboard (OSC 52),
// the title, a hyperlink, a DCS, cursor moves, a C1 CSI, a mode switch, a bell.
var hostile = []string{
	"\x1b]52;c;aGVsbG8=\x07", "\x1b]0;owned\x1b\\", "\x1b]8;;http://evil\x07link\x1b]8;;\x07",
	"\x1bP+q544e\x1b\\", "\x1b[2J\x1b[H", "\u009b31m", "\x1b[?1049h", "\a", "\x1b(0",
}

// TestTermSafeStripsAtEveryCut writes text with every hostile sequence, cut at every offset
// into two writes: no escape but SGR colours reaches the terminal, the text around them does
// whole (UTF-8 characters cut between writes included), and a carriage return and a tab stay.
func TestTermSafeStripsAtEveryCut(t *testing.T) {
	for _, h := range hostile {
		text := "naïve→" + h + "\x1b[31mred\x1b[0m\tx\r\n"
		for cut := 0; cut <= len(text); cut++ {
			var out bytes.Buffer
			w := newTermSafe(&out)
			w.Write([]byte(text[:cut]))
			w.Write([]byte(text[cut:]))
			got := out.String()
			if strings.ContainsAny(strings.ReplaceAll(strings.ReplaceAll(got, "\x1b[31m", ""), "\x1b[0m", ""), "\x1b\a\u009b") {
				t.Fatalf("%q cut at %d: %q reached the terminal", h, cut, got)
			}
			if !strings.HasPrefix(got, "naïve→") || !strings.Contains(got, "red") || !strings.HasSuffix(got, "\tx\r\n") {
				t.Fatalf("%q cut at %d: text lost: %q", h, cut, got)
			}
		}
	}
}

// TestTermSafeKeepsJSONAndBoundsHeld checks JSON passes unchanged (control characters are
// escaped in it) and that an escape sequence that never ends does not swallow what follows.
func TestTermSafeKeepsJSONAndBoundsHeld(t *testing.T) {
	var out bytes.Buffer
	w := newTermSafe(&out)
	b, _ := json.Marshal(map[string]string{"name": "\x1b]52;c;x\x07 é \t"})
	w.Write(append(b, '\n'))
	if out.String() != string(b)+"\n" {
		t.Fatalf("JSON changed: %q → %q", b, out.String())
	}
	out.Reset()
	for range 10 {
		w.Write([]byte("\x1b]0;" + strings.Repeat("a", 4096)))
	}
	w.Write([]byte("after\n"))
	if !strings.HasSuffix(out.String(), "after\n") {
		t.Fatalf("an endless sequence swallowed the rest: %q", out.String())
	}
}
