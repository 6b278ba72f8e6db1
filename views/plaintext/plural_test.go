package plaintext

import "testing"

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
