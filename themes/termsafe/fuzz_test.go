package termsafe

import (
	"strings"
	"testing"
)

// screenOf applies Screen's carriage returns and tabs to Display's output, the slow way: what
// Screen must give for any input.
func screenOf(display string) string {
	var lines []string
	for _, line := range strings.Split(display, "\n") {
		line = strings.TrimSuffix(line, "\r")
		parts := strings.Split(line, "\r")
		keep := ""
		for _, p := range parts {
			if p != "" {
				keep = p // a carriage return cuts the line once something follows it.
			}
		}
		lines = append(lines, strings.ReplaceAll(keep, "\t", tabSpaces))
	}
	return strings.Join(lines, "\n")
}

// FuzzSanitizer checks that any input gives safe text in every mode, that chunking does not
// change a stream's output, that Screen is Display with its lines redrawn, and that Screen's
// output is a fixed point.
func FuzzSanitizer(f *testing.F) {
	for _, seed := range []string{"plain\n", "\x1b[31mred\x1b[0m", "\x1b]52;c;x\x07", "h\xc3\xa9\xe2\x86", "\x9b31m\xff\r\n", "a\rb\r\r\nc\td\r"} {
		f.Add([]byte(seed), uint8(3))
	}
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8) {
		step := int(chunk%16) + 1
		for _, m := range []Mode{Display, Text} {
			whole := String(string(in), m)
			s := New(m)
			var parts strings.Builder
			for i := 0; i < len(in); i += step {
				parts.Write(s.Feed(in[i:min(i+step, len(in))]))
			}
			parts.Write(s.End())
			if whole != parts.String() {
				t.Fatalf("mode %d: chunking changed the output: %q vs %q", m, whole, parts.String())
			}
			if bad := unsafeRune(whole, m.keepsSGR(), allowedControls[m]); bad != "" {
				t.Fatalf("mode %d: %s in %q", m, bad, whole)
			}
		}
		screen := String(string(in), Screen)
		if bad := unsafeRune(screen, true, ""); bad != "" {
			t.Fatalf("screen: %s in %q", bad, screen)
		}
		if want := screenOf(String(string(in), Display)); screen != want {
			t.Fatalf("screen %q, want %q (display %q)", screen, want, String(string(in), Display))
		}
		if again := String(screen, Screen); again != screen {
			t.Fatalf("screen is not a fixed point: %q then %q", screen, again)
		}
	})
}
