package views

import "strings"

// planMarks are how the steps of a plan show: done, in progress, to do.
var planMarks = []struct{ box, glyph string }{{"[x] ", "✓ "}, {"[~] ", "▸ "}, {"[ ] ", "○ "}}

// renderPlan shows an agent's plan as a checklist under a "plan" label: done steps dimmed, the
// step in progress highlighted; lines that are not steps (the plan's explanation) as notices.
func (c *Conversation) renderPlan(text string, w int) []string {
	st := c.styles()
	lines := []string{st.Conv.Notice.Render("☰ plan")}
	for _, l := range strings.Split(text, "\n") {
		first, style := "  ", st.Conv.Notice.Render
		for i, m := range planMarks {
			if rest, ok := strings.CutPrefix(l, m.box); ok {
				l, first = rest, "  "+m.glyph
				switch i {
				case 0:
					style = st.Text.Muted.Render
				case 1:
					style = st.Conv.AssistantLabel.Render
				}
			}
		}
		lines = append(lines, prefixed(first, "    ", style, l, w)...)
	}
	return lines
}
