package cli

import (
	"strings"
	"testing"
)

// TestOutputPreview: exo run shows the first lines of a tool's output, not only the first, with
// a count of the rest; short output whole, progress-bar redraws as their last state, and no
// output said so.
func TestOutputPreview(t *testing.T) {
	var long []string
	for i := 1; i <= 12; i++ {
		long = append(long, "line "+strings.Repeat("x", i))
	}
	for _, c := range []struct{ out, want string }{
		{"ok\n", "  ↳ ok\n"},
		{"a\nb\nc\n\n", "  ↳ a\n    b\n    c\n"},
		{strings.Join(long, "\n") + "\n", "  ↳ line x\n    line xx\n    line xxx\n    line xxxx\n    line xxxxx\n    … +7 lines\n"},
		{strings.Join(long[:6], "\n"), "  ↳ line x\n    line xx\n    line xxx\n    line xxxx\n    line xxxxx\n    … +1 line\n"},
		{"10%\r50%\r100%\ndone", "  ↳ 100%\n    done\n"},
		{"", "  ↳ (no output)\n"},
		{strings.Repeat("é", 300), "  ↳ " + strings.Repeat("é", previewWidth-1) + "…\n"},
	} {
		if got := outputPreview(c.out); got != c.want {
			t.Errorf("outputPreview(%q)\n got %q\nwant %q", c.out, got, c.want)
		}
	}
}
