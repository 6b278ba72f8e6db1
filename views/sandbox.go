package views

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// DefaultScrollback is how many output lines the sandbox pane keeps.
const DefaultScrollback = 5000

// maxLineBytes bounds one line: output without newlines is broken into
// lines at write boundaries (which never split an escape sequence).
const maxLineBytes = 16 << 10

// SandboxStatus describes the command the sandbox pane shows.
type SandboxStatus struct {
	Command  string        // Command is the running or last command.
	Running  bool          // Running is true while it runs.
	ExitCode int           // ExitCode is the exit status once finished.
	Duration time.Duration // Duration is the time it has run (supplied by the app).
	// Started is when a running command began; while it runs, each spinner
	// tick sets Duration from it, so the header counts up.
	Started time.Time
	// NoExitCode marks a command that ended without an exit status (refused before it ran).
	NoExitCode bool
	// Waiting marks a command that waits for the user's approval: it has not started, so the
	// header says so instead of counting (the app sets Started when it is approved).
	Waiting bool
	// Interrupted marks a command the log closed as interrupted (exo stopped while it ran).
	Interrupted bool
}

// SandboxOutputMsg carries new output of the running command (already
// sanitized upstream; the pane sanitizes again).
type SandboxOutputMsg struct {
	Text string // Text is the new output, possibly ending mid-line.
}

// Sandbox is the pane showing the live output of the running command.
type Sandbox struct {
	base
	Keys    ScrollKeyMap // Keys are the pane's bindings.
	status  SandboxStatus
	lines   *lineRing
	open    bool // open is true when the last line has no newline yet.
	offset  int  // offset is how many lines above the bottom the view ends.
	frame   int
	dropped int // dropped counts lines that fell out of the scrollback.
}

// NewSandbox returns a sandbox pane keeping scrollback lines of output.
func NewSandbox(c *Common, scrollback int) *Sandbox {
	if scrollback <= 0 {
		scrollback = DefaultScrollback
	}
	return &Sandbox{base: base{common: c}, Keys: DefaultScrollKeyMap(), lines: newLineRing(scrollback)}
}

// SetStatus sets the header: command, running state, exit code, duration.
func (s *Sandbox) SetStatus(st SandboxStatus) { s.status = st }

// Status returns the header's command and state.
func (s *Sandbox) Status() SandboxStatus { return s.status }

// Clear drops all output (a new command starts).
func (s *Sandbox) Clear() {
	s.lines.Reset()
	s.open, s.offset, s.dropped = false, 0, 0
}

// Write appends output; escape sequences other than SGR are removed.
func (s *Sandbox) Write(text string) {
	parts := strings.Split(text, "\n")
	for i, p := range parts {
		// A carriage return redraws the line (progress bars): keep what follows it.
		p = strings.TrimSuffix(p, "\r")
		redraw := false
		if k := strings.LastIndexByte(p, '\r'); k >= 0 {
			p, redraw = p[k+1:], true
		}
		p = Sanitize(p)
		switch {
		case i == 0 && s.open && redraw:
			s.lines.SetLast(p)
		case i == 0 && s.open && len(s.lines.At(s.lines.Len()-1))+len(p) <= maxLineBytes:
			s.lines.SetLast(s.lines.At(s.lines.Len()-1) + p)
		case i == len(parts)-1 && p == "":
		default:
			s.push(p)
		}
	}
	s.open = !strings.HasSuffix(text, "\n") && text != ""
}

// push appends a line, keeping a scrolled view where it is.
func (s *Sandbox) push(p string) {
	if s.lines.Len() == len(s.lines.buf) {
		s.dropped++
	}
	s.lines.Push(p)
	if s.offset > 0 {
		s.offset++
	}
}

// Lines returns how many lines the scrollback holds.
func (s *Sandbox) Lines() int { return s.lines.Len() }

// Update handles output, keys, the wheel and spinner ticks.
func (s *Sandbox) Update(msg tea.Msg) (Pane, tea.Cmd) {
	_, h := s.inner()
	switch msg := msg.(type) {
	case SandboxOutputMsg:
		s.Write(msg.Text)
	case SpinnerTickMsg:
		s.frame++
		if s.status.Running && !s.status.Waiting && !s.status.Started.IsZero() {
			s.status.Duration = time.Since(s.status.Started)
		}
	case tea.MouseWheelMsg:
		if msg.Button == tea.MouseWheelUp {
			s.scroll(3)
		} else if msg.Button == tea.MouseWheelDown {
			s.scroll(-3)
		}
	case tea.KeyPressMsg:
		k := s.Keys
		switch {
		case key.Matches(msg, k.Up):
			s.scroll(1)
		case key.Matches(msg, k.Down):
			s.scroll(-1)
		case key.Matches(msg, k.PageUp):
			s.scroll(h - 2)
		case key.Matches(msg, k.PageDown):
			s.scroll(-(h - 2))
		case key.Matches(msg, k.Top):
			s.scroll(s.lines.Len())
		case key.Matches(msg, k.Bottom):
			s.offset = 0
		}
	}
	return s, nil
}

// scroll moves the view up by d lines (down when negative).
func (s *Sandbox) scroll(d int) {
	_, h := s.inner()
	s.offset = min(max(s.offset+d, 0), max(s.lines.Len()-(h-1), 0))
}

// ShortHelp lists the main sandbox bindings.
func (s *Sandbox) ShortHelp() []key.Binding {
	return []key.Binding{s.Keys.Up, s.Keys.Down, s.Keys.Bottom}
}

// FullHelp lists all sandbox bindings.
func (s *Sandbox) FullHelp() [][]key.Binding { return [][]key.Binding{s.Keys.bindings()} }

// View renders the header and the visible output lines.
func (s *Sandbox) View() string {
	w, h := s.inner()
	if s.width < 4 || s.height < 3 {
		w, h = s.width, s.height
	}
	body := make([]string, 0, h)
	if h > 0 {
		body = append(body, s.header(w))
	}
	rows := h - len(body)
	s.offset = min(s.offset, max(s.lines.Len()-rows, 0))
	end := s.lines.Len() - s.offset
	for i := max(end-rows, 0); i < end; i++ {
		body = append(body, truncate(s.content(s.lines.At(i)), w))
	}
	info := ""
	if s.offset > 0 {
		info = fmt.Sprintf("↑%d", s.offset)
	}
	return frame(s.styles(), s.focused, "Sandbox", info, body, s.width, s.height)
}

// header renders "$ command   ⠋ running 3.2s" or the exit status.
func (s *Sandbox) header(w int) string {
	st := s.styles()
	var state string
	switch {
	case s.status.Command == "":
		return st.Text.Muted.Render(truncate("no command yet", w))
	case s.status.Running && s.status.Waiting:
		state = st.Text.Muted.Render("awaiting approval")
	case s.status.Running:
		state = st.Spinner.Render(spinnerFrame(s.frame)) + st.Text.Muted.Render(" running "+fmtDuration(s.status.Duration))
	case s.status.Interrupted:
		state = st.Status.Err.Render("✗ interrupted") + st.Text.Muted.Render(" · exo stopped while it ran")
	case s.status.NoExitCode:
		state = st.Status.Err.Render("✗ failed") + st.Text.Muted.Render(" · "+fmtDuration(s.status.Duration))
	case s.status.ExitCode == 0:
		state = st.Status.OK.Render("✓ exit 0") + st.Text.Muted.Render(" · "+fmtDuration(s.status.Duration))
	default:
		state = st.Status.Err.Render(fmt.Sprintf("✗ exit %d", s.status.ExitCode)) + st.Text.Muted.Render(" · "+fmtDuration(s.status.Duration))
	}
	cmd := st.Text.Strong.Render("$ ") + st.Text.Normal.Render(oneLine(Sanitize(s.status.Command)))
	room := w - widthOf(state) - 1
	if room < 6 {
		return truncate(cmd, w)
	}
	return fit(cmd, room) + " " + state
}
