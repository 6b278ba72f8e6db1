package views

import (
	"fmt"
	"strings"
)

// streamingThinkingLines is how much of the reasoning shows while it streams.
const streamingThinkingLines = 3

// streamingTail is how many bytes of streaming reasoning are wrapped to find its last lines.
const streamingTail = 2048

// tailRunes returns about the last n bytes of s, starting on a rune boundary.
func tailRunes(s string, n int) string {
	i := len(s) - n
	for i < len(s) && s[i]&0xC0 == 0x80 {
		i++
	}
	return s[i:]
}

// renderThinking renders the model's reasoning, dimmed: while it streams, a
// header with a spinner and its last lines; once done, a one-line header
// that enter expands to the whole text.
func (c *Conversation) renderThinking(e *convEntry, w int) []string {
	st := c.styles()
	gutter := st.Text.Muted.Render("│ ")
	if e.selected {
		gutter = st.Conv.ToolSelected.Render("▌ ")
	}
	text := e.item.Text
	if e.item.Streaming && len(text) > streamingTail {
		text = tailRunes(text, streamingTail) // a frame costs the same at the 100th delta as at the 10,000th
	}
	var body []string
	for _, para := range strings.Split(strings.TrimSpace(Sanitize(text)), "\n") {
		for _, l := range wrap(para, max(w-2, 1)) {
			body = append(body, st.Text.Muted.Render(l))
		}
	}
	mark := "✻ "
	if e.selected {
		mark = "▸ "
	}
	switch {
	case e.item.Streaming:
		head := st.Text.Muted.Render(mark+"thinking") + c.streamMark(e)
		if len(body) > streamingThinkingLines {
			body = body[len(body)-streamingThinkingLines:]
		}
		return append([]string{head}, prefixAll(gutter, body)...)
	case e.expanded:
		head := st.Text.Muted.Render(truncate(mark+"thought · enter collapses", w))
		return append([]string{head}, prefixAll(gutter, body)...)
	}
	first := ""
	if len(body) > 0 {
		first = oneLine(plain(Sanitize(e.item.Text)))
	}
	head := fmt.Sprintf("%sthought · %s · enter expands", mark, Plural(len(body), "line"))
	if room := w - widthOf(head) - 3; room > 8 && first != "" {
		head += " · " + truncate(first, room)
	}
	return []string{st.Text.Muted.Render(truncate(head, w))}
}

// prefixAll puts prefix before every line.
func prefixAll(prefix string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = prefix + l
	}
	return out
}
