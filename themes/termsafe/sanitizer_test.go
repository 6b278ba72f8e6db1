package termsafe

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// unsafeRune names the first rune of s that could act on a terminal (an escape when sgr is
// false, any control but newline and those allowed), or returns "".
func unsafeRune(s string, sgr bool, allowed string) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	for i, r := range s {
		if r == '\n' || strings.ContainsRune(allowed, r) || r == 0x1b && sgr {
			continue
		}
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			return fmt.Sprintf("control %U at %d: %q", r, i, s[max(0, i-10):min(len(s), i+10)])
		}
	}
	return ""
}

// allowedControls are the controls each mode may leave in its output.
var allowedControls = map[Mode]string{Display: "\t\r", Text: "\t", Screen: ""}

func TestScreenKeepsOnlySGR(t *testing.T) {
	t.Parallel()
	in := "a\x1b[31mred\x1b[0m\x1b]0;title\x07\x1b]52;c;Zm9v\x1b\\\x1b[2J\x1b[10;10H\x1bPdcs\x1b\\b\r\nprogress 10%\rprogress 99%\n\x07\x08c\u009b31m\tx"
	want := "a\x1b[31mred\x1b[0mb\nprogress 99%\nc31m    x"
	if got := String(in, Screen); got != want {
		t.Errorf("String(Screen) = %q, want %q", got, want)
	}
	if got := String(in, Text); got != "aredb\nprogress 10%\nprogress 99%\nc31m\tx" {
		t.Errorf("String(Text) = %q", got)
	}
	if got := String(in, Display); got != "a\x1b[31mred\x1b[0mb\r\nprogress 10%\rprogress 99%\nc31m\tx" {
		t.Errorf("String(Display) = %q", got)
	}
}

func TestScreenCarriageReturn(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"a\rb":                 "b",
		"one\ntwo\rTWO\nthree": "one\nTWO\nthree",
		"done\r":               "done", // nothing drawn over it yet
		"a\r\r\nb":             "a\nb",
		"x\r\x1b[31my":         "\x1b[31my",
		"\r\r\rz":              "z",
	} {
		if got := String(in, Screen); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCleanTextIsNotCopied(t *testing.T) {
	t.Parallel()
	for _, m := range []Mode{Display, Text, Screen} {
		in := "héllo → wörld\nnext"
		if got := String(in, m); got != in || unsafe.StringData(got) != unsafe.StringData(in) {
			t.Errorf("mode %d copied or changed clean text: %q", m, got)
		}
	}
	if got := String("a\u0085b", Screen); got != "ab" {
		t.Errorf("a C1 control passed: %q", got)
	}
	if got := String("a\xffb\xe2\x86", Screen); got != "a\uFFFDb\uFFFD\uFFFD" {
		t.Errorf("invalid UTF-8: %q", got)
	}
}

func TestSplitUTF8(t *testing.T) {
	t.Parallel()
	s := New(Text)
	in := []byte("héllo → wörld\r\nnext\rover\n")
	var out []byte
	for i := range in {
		out = append(out, s.Feed(in[i:i+1])...)
	}
	if string(out) != "héllo → wörld\nnext\nover\n" {
		t.Fatalf("byte-at-a-time: %q", out)
	}
}

func TestUnterminatedSequencesDoNotSwallowLines(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"\x1b]0;never ends\nnext\n", "\x1bP+qabc\nnext\n", "\x1b[12;\nnext\n", "\x1b\nnext\n"} {
		for _, m := range []Mode{Display, Text, Screen} {
			if out := String(in, m); out != "\nnext\n" {
				t.Errorf("%q (mode %d): %q", in, m, out)
			}
		}
	}
	long := "\x1b]" + strings.Repeat("x", 5000) + "after"
	if out := String(long, Text); !strings.HasSuffix(out, "after") {
		t.Errorf("an endless OSC swallowed the rest: %q", out)
	}
}

func TestBoundedCSI(t *testing.T) {
	t.Parallel()
	in := "\x1b[" + strings.Repeat("1;", 10000) + "mx"
	if out := String(in, Display); out != "x" {
		t.Errorf("an oversized SGR passed: %q", out[:min(len(out), 40)])
	}
}
