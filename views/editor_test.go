package views

import (
	"slices"
	"strings"
	"testing"
)

// TestEditorWrapsAtTheCell holds what keeps the prompt's editor exo's own (see editor): a long
// line is cut at the last cell that fits, in the middle of a word, wide characters counted two
// cells by ansi.StringWidth, and the decorate hook styles each cut piece; bubbles' textarea
// moves a word that does not fit to the next line and styles a line with one style.
func TestEditorWrapsAtTheCell(t *testing.T) {
	e := newEditor()
	var pieces []string
	e.decorate = func(s string) string { pieces = append(pieces, s); return strings.ToUpper(s) }
	e.SetValue("the quick brown 日本 ox")
	got := e.view(10, 5, "> ", "  ", nil)
	want := []string{"> THE QUIC", "  K BROWN ", "  日本 OX"}
	if !slices.Equal(got, want) {
		t.Fatalf("wrapped %q, want %q", got, want)
	}
	if !slices.Equal(pieces, []string{"the quic", "k brown ", "日本 ox"}) {
		t.Fatalf("decorated %q", pieces)
	}
}
