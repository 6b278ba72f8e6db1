package cli

import (
	"fmt"
	"strings"

	"exo/views/plaintext"
)

// previewLines and previewWidth bound the part of a tool's output exo run shows in text mode:
// its first lines, each cut to a width, and a count of the lines left out (the whole output is
// in the log: exo log SESSION).
const (
	previewLines = 5
	previewWidth = 160
)

// outputPreview renders the first lines of a tool's output under its call, indented, with
// "… +K lines" for the rest: "  ↳ first\n    second\n    … +12 lines\n". A line redrawn with
// carriage returns (a progress bar) shows what it ended as; trailing blank lines are dropped.
func outputPreview(out string) string {
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(out, "\r\n", "\n"), " \t\n"), "\n")
	if len(lines) == 1 && strings.TrimSpace(lines[0]) == "" {
		return "  ↳ (no output)\n"
	}
	var b strings.Builder
	for i, l := range lines[:min(len(lines), previewLines)] {
		if k := strings.LastIndexByte(strings.TrimRight(l, "\r"), '\r'); k >= 0 {
			l = l[k+1:]
		}
		prefix := "    "
		if i == 0 {
			prefix = "  ↳ "
		}
		b.WriteString(prefix + cutRunes(strings.TrimRight(l, " \t\r"), previewWidth) + "\n")
	}
	if rest := len(lines) - previewLines; rest > 0 {
		fmt.Fprintf(&b, "    … +%s\n", plaintext.Plural(rest, "line"))
	}
	return b.String()
}

// cutRunes cuts s to n runes, marking a cut with "…".
func cutRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
