package views

import (
	"strings"
)

// CopyRequest asks the app to put text on the clipboard (OSC 52); What says what it is.
type CopyRequest struct {
	Text string // Text is what to copy.
	What string // What names it for the status line ("the answer", "a code block").
}

// copyBlock returns what y copies: the selected block (a tool call's command and output, a
// thinking block), else the newest answer.
func (c *Conversation) copyBlock() (CopyRequest, bool) {
	if c.sel >= 0 && c.sel < len(c.entries) {
		it := c.entries[c.sel].item
		if it.Kind == KindThinking {
			return CopyRequest{Text: it.Text, What: "the thinking block"}, it.Text != ""
		}
		text := strings.TrimRight(it.Output, "\n")
		if it.ArgsSummary != "" {
			text = "$ " + it.ArgsSummary + "\n" + text
		}
		if it.Diff != "" {
			text += "\n" + it.Diff
		}
		return CopyRequest{Text: text, What: "the " + ToolLabel(it.Tool) + " block"}, true
	}
	for i := len(c.entries) - 1; i >= 0; i-- {
		if it := c.entries[i].item; it.Kind == KindAssistant && it.Text != "" {
			return CopyRequest{Text: it.Text, What: "the answer"}, true
		}
	}
	return CopyRequest{}, false
}

// copyCode returns what c copies: the last fenced code block of the newest answer that has one.
func (c *Conversation) copyCode() (CopyRequest, bool) {
	for i := len(c.entries) - 1; i >= 0; i-- {
		if it := c.entries[i].item; it.Kind == KindAssistant {
			if code, ok := lastCodeBlock(it.Text); ok {
				return CopyRequest{Text: code, What: "a code block"}, true
			}
		}
	}
	return CopyRequest{}, false
}

// lastCodeBlock returns the body of the last fenced (``` or ~~~) code block in markdown; an
// unclosed fence (an answer still streaming) runs to the end.
func lastCodeBlock(md string) (string, bool) {
	var body []string
	found, in, fence := false, false, ""
	for _, l := range strings.Split(md, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case !in && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			in, fence, body, found = true, t[:3], nil, true
		case in && strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "":
			in = false
		case in:
			body = append(body, l)
		}
	}
	return strings.Join(body, "\n"), found
}
