package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestPlural: one takes the singular, any other count the plural, of the noun's last word.
func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n          int
		noun, want string
	}{
		{1, "file", "1 file"}, {0, "file", "0 files"}, {2, "file", "2 files"},
		{1, "tool call", "1 tool call"}, {3, "tool call", "3 tool calls"},
		{1, "step", "1 step"}, {12, "step", "12 steps"},
		{2, "branch", "2 branches"}, {1, "branch", "1 branch"},
		{2, "unfinished fork copy", "2 unfinished fork copies"}, {2, "day", "2 days"},
		{5, "more line", "5 more lines"}, {2, "pass", "2 passes"}, {2, "box", "2 boxes"},
	} {
		if got := Plural(c.n, c.noun); got != c.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}

// TestConfirmOneFile: rewinding one file says "1 file returns to its state", not "1 files".
func TestConfirmOneFile(t *testing.T) {
	c := NewCommon(testThemes["dark"]())
	d := NewConfirm(c, RewindPlan{Seq: 9, Events: 1, Files: []string{"main.go"}})
	d.SetSize(80, 20)
	v := ansi.Strip(d.View())
	if !strings.Contains(v, "1 file returns to its state at 9") || !strings.Contains(v, "1 event leaves the live") {
		t.Fatalf("the rewind dialog:\n%s", v)
	}
	if strings.Contains(v, "1 files") || strings.Contains(v, "1 events") {
		t.Fatalf("a count of one in the plural:\n%s", v)
	}
}
