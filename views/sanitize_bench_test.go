package views

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkSanitizeCarriageReturns measures Sanitize on n lines of output, each redrawn four
// times with a carriage return (a download's progress kept in a tool result). A carriage
// return used to copy all the text before its line, so the cost per byte grew with n; in
// linear time it stays flat.
func BenchmarkSanitizeCarriageReturns(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		var in, want strings.Builder
		for i := range n {
			for p := range 4 {
				fmt.Fprintf(&in, "\x1b[32mfile%d\x1b[0m %d%%\r", i, p*25)
			}
			fmt.Fprintf(&in, "file%d done\n", i)
			fmt.Fprintf(&want, "file%d done\n", i)
		}
		s := in.String()
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				if Sanitize(s) != want.String() {
					b.Fatal("wrong output")
				}
			}
		})
	}
}
