package views

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Limits on collapsed tool blocks.
const (
	collapsedDiffLines   = 12 // collapsedDiffLines is how much of a diff shows collapsed.
	collapsedOutputLines = 3  // collapsedOutputLines is how much output shows collapsed.
)

// renderEntry renders one item into lines of at most w cells, each item
// followed by one blank separator line.
func (c *Conversation) renderEntry(e *convEntry, w int) []string {
	st := c.styles()
	var lines []string
	switch e.item.Kind {
	case KindUser:
		lines = prefixed(st.Conv.UserLabel.Render("› "), "  ", st.Conv.User.Render, e.item.Text, w)
		for _, a := range strings.Split(e.item.Attached, "\n") {
			if a == "" {
				continue
			}
			lines = append(lines, prefixed("  "+st.Text.Muted.Render("⎘ "), "    ", st.Text.Mention.Render, "attached "+a, w)...)
		}
	case KindAssistant:
		head := []string{st.Conv.AssistantLabel.Render("● assistant") + c.streamMark(e)}
		if e.md == nil {
			e.md = &mdStream{}
		}
		lines = e.md.update(&c.md, c.common, head, e.item.Text, w, e.grown)
		e.grown = true
		return append(lines, "")
	case KindTool:
		lines = c.renderTool(e, w)
	case KindThinking:
		lines = c.renderThinking(e, w)
	case KindNotice:
		lines = prefixed(st.Conv.Notice.Render("• "), "  ", st.Conv.Notice.Render, e.item.Text, w)
	case KindPlan:
		lines = c.renderPlan(e.item.Text, w)
	case KindDenied:
		lines = prefixed(st.Conv.Denied.Render("⊘ "), "  ", st.Conv.Denied.Render, "secret denied: "+e.item.Text, w)
	case KindViolation:
		lines = prefixed(st.Conv.Violation.Render("! "), "  ", st.Conv.Violation.Render, "policy violation: "+e.item.Text, w)
	case KindError:
		lines = prefixed(st.Status.Err.Render("✗ "), "  ", st.Status.Err.Render, e.item.Text, w)
	}
	return append(lines, "")
}

// streamMark is the spinner shown on an assistant turn still streaming, or the mark of an
// answer that was cut.
func (c *Conversation) streamMark(e *convEntry) string {
	if e.item.Cut != "" && !e.item.Streaming {
		return " " + c.styles().Status.Warn.Render("✂ "+Sanitize(e.item.Cut))
	}
	if !e.item.Streaming {
		return ""
	}
	return " " + c.styles().Spinner.Render(spinnerFrame(c.frame))
}

// prefixed wraps text to w cells with a first-line and continuation prefix.
func prefixed(first, rest string, style func(...string) string, text string, w int) []string {
	pw := widthOf(first)
	var out []string
	for _, para := range strings.Split(Sanitize(text), "\n") {
		for _, l := range wrap(para, max(w-pw, 1)) {
			p := rest
			if len(out) == 0 {
				p = first
			}
			out = append(out, p+style(l))
		}
	}
	return out
}

// cutMarkRE matches the line the harness puts where it left out the middle of a long output.
var cutMarkRE = regexp.MustCompile(`^… (\d+) bytes left out here \(the log holds all of it\) …$`)

// cutBytes returns how many bytes the harness left out of lines ("" when it left none out).
func cutBytes(lines []string) string {
	for _, l := range lines {
		if m := cutMarkRE.FindStringSubmatch(stripToPlain(l)); m != nil {
			return m[1]
		}
	}
	return ""
}

// renderTool renders a tool call block: a header, then output and diff.
func (c *Conversation) renderTool(e *convEntry, w int) []string {
	st := c.styles()
	gutter := "  "
	if e.selected {
		gutter = st.Conv.ToolSelected.Render("▌ ")
	}
	lines := []string{c.toolHeader(e.item, w, e.selected)}
	body := make([]string, 0, 8)
	if out := strings.TrimRight(c.content(Sanitize(e.item.Output)), "\n"); out != "" {
		ol := strings.Split(out, "\n")
		if !e.expanded && len(ol) > collapsedOutputLines {
			hidden := ol[:len(ol)-collapsedOutputLines]
			more := Plural(len(hidden), "more line")
			if cut := cutBytes(hidden); cut != "" {
				more += " and " + cut + " bytes only the log holds" // the line count alone read as the whole output's
			}
			body = append(body, st.Text.Muted.Render(truncate("… "+more+" · enter expands", w-2)))
			ol = ol[len(ol)-collapsedOutputLines:]
		}
		for _, l := range ol {
			body = append(body, truncate(l, w-2))
		}
	}
	if e.item.Artifact != "" {
		body = append(body, st.Text.Muted.Render(truncate("full output: "+oneLine(Sanitize(e.item.Artifact)), w-2)))
	}
	if e.item.Diff != "" {
		dl := renderDiff(st, e.item.Diff, w-2)
		if !e.expanded && len(dl) > collapsedDiffLines {
			more := len(dl) - collapsedDiffLines
			dl = append(dl[:collapsedDiffLines:collapsedDiffLines], st.Text.Muted.Render(fmt.Sprintf("… %s · enter expands", Plural(more, "more diff line"))))
		}
		body = append(body, dl...)
	}
	for _, l := range body {
		lines = append(lines, gutter+l)
	}
	return lines
}

// toolHeader renders "▣ tool args … status" in w cells; a selected block
// shows "▸" instead of "▣".
func (c *Conversation) toolHeader(it ConvItem, w int, selected bool) string {
	st := c.styles()
	status := c.toolStatus(it)
	name := st.Conv.ToolName.Render("▣ " + plain(ToolLabel(it.Tool)))
	if selected {
		name = st.Conv.ToolSelected.Render("▸ " + plain(ToolLabel(it.Tool)))
	}
	room := w - widthOf(name) - widthOf(status) - 2
	args := ""
	if room > 0 {
		args = st.Conv.ToolArgs.Render(truncate(oneLine(Sanitize(it.ArgsSummary)), room))
	}
	gap := max(w-widthOf(name)-widthOf(args)-widthOf(status)-1, 1)
	return truncate(name+" "+args+strings.Repeat(" ", gap)+status, w)
}

// toolStatus renders the status, exit code and duration of a tool call.
func (c *Conversation) toolStatus(it ConvItem) string {
	st := c.styles()
	switch it.Status {
	case ToolRunning:
		return st.Spinner.Render(spinnerFrame(c.frame)) + st.Text.Muted.Render(" running")
	case ToolPending:
		return st.Status.Warn.Render("… pending")
	case ToolOK:
		mark := fmt.Sprintf("✓ %d", it.ExitCode)
		if it.NoExitCode {
			mark = "✓"
		}
		return st.Status.OK.Render(mark) + st.Text.Muted.Render(" · "+fmtDuration(it.Duration))
	case ToolFailed:
		mark := fmt.Sprintf("✗ %d", it.ExitCode)
		if it.NoExitCode {
			mark = "✗ failed"
		}
		return st.Status.Err.Render(mark) + st.Text.Muted.Render(" · "+fmtDuration(it.Duration))
	case ToolDenied:
		return st.Status.Err.Render("⊘ denied")
	case ToolCanceled:
		return st.Status.Warn.Render("■ canceled")
	}
	return ""
}

// fmtDuration formats a duration compactly: 850ms, 1.2s, 3m04s.
func fmtDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
