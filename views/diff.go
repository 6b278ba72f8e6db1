package views

import (
	"strings"

	"exo/themes"
)

// renderDiff colours a unified diff line by line, cutting lines to w cells.
func renderDiff(st *themes.Styles, diff string, w int) []string {
	raw := strings.Split(strings.TrimRight(Sanitize(diff), "\n"), "\n")
	out := make([]string, 0, len(raw))
	for _, l := range raw {
		l = truncate(stripToPlain(l), w)
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "diff "):
			out = append(out, st.Diff.Header.Render(l))
		case strings.HasPrefix(l, "@@"):
			out = append(out, st.Diff.Hunk.Render(l))
		case strings.HasPrefix(l, "+"):
			out = append(out, st.Diff.Add.Render(l))
		case strings.HasPrefix(l, "-"):
			out = append(out, st.Diff.Remove.Render(l))
		default:
			out = append(out, st.Diff.Context.Render(l))
		}
	}
	return out
}
