package sandbox

import (
	"strings"
	"testing"
)

// FuzzSanitizer checks that any input gives safe text and that chunking does not matter.
func FuzzSanitizer(f *testing.F) {
	for _, seed := range []string{"plain\n", "\x1b[31mred\x1b[0m", "\x1b]52;c;x\x07", "h\xc3\xa9\xe2\x86", "\x9b31m\xff\r\n"} {
		f.Add([]byte(seed), uint8(3))
	}
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8) {
		for _, keep := range []bool{false, true} {
			whole := string(newSanitizer(keep).feed(in))
			s := newSanitizer(keep)
			var parts strings.Builder
			step := int(chunk%16) + 1
			for i := 0; i < len(in); i += step {
				parts.Write(s.feed(in[i:min(i+step, len(in))]))
			}
			if whole != parts.String() {
				t.Fatalf("chunking changed the output: %q vs %q", whole, parts.String())
			}
			for _, out := range []string{whole, parts.String()} {
				if bad := invalidText(out); bad != "" {
					t.Fatalf("keepSGR=%v: %s in %q", keep, bad, out)
				}
				if !keep && strings.ContainsRune(out, 0x1b) {
					t.Fatalf("escape in model text: %q", out)
				}
			}
		}
	})
}
