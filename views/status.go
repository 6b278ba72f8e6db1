package views

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
)

// StatusInfo is everything the status bar shows.
type StatusInfo struct {
	Session    string        // Session is the session name.
	Model      string        // Model is the model name.
	Scripted   bool          // Scripted marks the scripted model.
	ContextPct float64       // ContextPct is the share of the context window used, 0–100.
	TokensIn   int           // TokensIn counts prompt tokens of the session.
	TokensOut  int           // TokensOut counts completion tokens of the session.
	Cost       float64       // Cost is in US dollars.
	Budget     float64       // Budget is the session's cost budget in US dollars; 0 means none.
	AgentCost  float64       // AgentCost is an external agent's own reckoning of its cost in US dollars (agent.usage); 0 hides it.
	TTFT       time.Duration // TTFT is the last time to first token; 0 hides it.
	Network    bool          // Network is true when the sandbox may use the network.
	Confined   bool          // Confined is true when writes are confined to the workspace.
	Busy       bool          // Busy is true while a turn runs.
	Message    string        // Message is a transient notice (e.g. an error that fades).
	MessageErr bool          // MessageErr shows Message as an error.
	MCP        string        // MCP is the MCP servers' state, e.g. "mcp 2/3 (web failed)"; "" hides it.
	MCPErr     bool          // MCPErr shows MCP as a warning (a server failed, crashed or hung).
}

// StatusBar is the one-line bar at the bottom of the screen. It is not a
// focusable pane: it only has SetInfo, SetHints, SetWidth and View.
type StatusBar struct {
	common *Common
	info   StatusInfo
	hints  []key.Binding
	width  int
	frame  int
	last   statusFrame // the last line drawn and what it was drawn from
}

// statusFrame is a drawn bar and everything it depends on: an answer that streams redraws the
// screen 30 times a second, and the bar's segments are a dozen styled renders.
type statusFrame struct {
	info         StatusInfo
	hints        string // the enabled hints' keys and descriptions
	width, frame int    // frame counts only while Busy (the spinner)
	gen          int    // the theme's generation
	line         string
}

// NewStatusBar returns an empty status bar.
func NewStatusBar(c *Common) *StatusBar { return &StatusBar{common: c} }

// SetInfo replaces what the bar shows.
func (s *StatusBar) SetInfo(i StatusInfo) { s.info = i }

// Info returns what the bar shows.
func (s *StatusBar) Info() StatusInfo { return s.info }

// SetHints sets the key hints shown at the right (usually the focused
// pane's ShortHelp).
func (s *StatusBar) SetHints(h []key.Binding) { s.hints = h }

// SetWidth sets the bar width.
func (s *StatusBar) SetWidth(w int) { s.width = max(w, 0) }

// Tick advances the busy spinner (call on SpinnerTickMsg).
func (s *StatusBar) Tick() { s.frame++ }

// messagePrio is the priority of a transient message: after the session name and before the model.
const messagePrio = 95

// segment is a piece of the bar with a priority: lower drops first.
type segment struct {
	text string
	prio int
}

// View renders the bar in exactly its width, dropping the least important
// segments first when narrow.
func (s *StatusBar) View() string {
	k := statusFrame{info: s.info, hints: s.hintKey(), width: s.width, gen: s.common.Generation()}
	if s.info.Busy {
		k.frame = s.frame
	}
	if s.last.line != "" {
		line := s.last.line
		if s.last.line = ""; s.last == k {
			s.last.line = line
			return line
		}
	}
	k.line = s.view()
	s.last = k
	return k.line
}

// hintKey is what the hints show, as one string.
func (s *StatusBar) hintKey() string {
	var b strings.Builder
	for _, h := range s.hints {
		if h.Enabled() {
			b.WriteString(h.Help().Key)
			b.WriteByte(0)
			b.WriteString(h.Help().Desc)
			b.WriteByte(0)
		}
	}
	return b.String()
}

// view renders the bar (see View).
func (s *StatusBar) view() string {
	segs := s.segments()
	sep := s.on(s.common.Styles.Status.Key).Render(" │ ")
	for len(segs) > 1 && s.joinedWidth(segs, sep) > s.width {
		drop := 0
		for i, sg := range segs {
			if sg.prio < segs[drop].prio {
				drop = i
			}
		}
		if segs[drop].prio == messagePrio {
			// A message is never dropped whole: it is cut to what is left of the bar.
			room := s.width - (s.joinedWidth(segs, sep) - widthOf(segs[drop].text))
			if room >= 8 {
				segs[drop].text = truncate(segs[drop].text, room)
				break
			}
		}
		segs = append(segs[:drop], segs[drop+1:]...)
	}
	parts := make([]string, len(segs))
	for i, sg := range segs {
		parts[i] = sg.text
	}
	line := truncate(s.on(lipgloss.NewStyle()).Render(" ")+strings.Join(parts, sep), s.width)
	if pad := s.width - widthOf(line); pad > 0 {
		line += s.on(lipgloss.NewStyle()).Render(strings.Repeat(" ", pad))
	}
	return line
}

// joinedWidth is the width of the segments joined by sep.
func (s *StatusBar) joinedWidth(segs []segment, sep string) int {
	w := 1 + widthOf(sep)*(len(segs)-1)
	for _, sg := range segs {
		w += widthOf(sg.text)
	}
	return w
}

// segments builds the bar's pieces with their priorities.
func (s *StatusBar) segments() []segment {
	st := s.common.Styles.Status
	i := s.info
	name := s.on(st.Value).Render(orDash(plain(i.Session)))
	if i.Busy {
		name = s.on(s.common.Styles.Spinner).Render(spinnerFrame(s.frame)+" ") + name
	}
	model := s.on(st.Value).Render(orDash(plain(i.Model)))
	if i.Scripted {
		model += s.on(st.Key).Render(" ") + s.on(s.common.Styles.Scripted).Render("scripted")
	}
	segs := []segment{{name, 100}, {model, 90}, {s.ctx(), 80},
		{s.on(st.Key).Render("tok ") + s.on(st.Value).Render(compact(i.TokensIn)+"↑ "+compact(i.TokensOut)+"↓"), 50},
		{s.cost(), 60}, {s.policy(), 70}}
	if i.MCP != "" {
		style, prio := st.OK, 45
		if i.MCPErr {
			style, prio = st.Warn, 65 // a failing or untrusted server outranks token and cost figures
		}
		segs = append(segs, segment{s.on(style).Render(oneLine(plain(i.MCP))), prio})
	}
	if i.TTFT > 0 {
		segs = append(segs, segment{s.on(st.Key).Render("ttft ") + s.on(st.Value).Render(fmtDuration(i.TTFT)), 40})
	}
	if i.Message != "" {
		style := st.Warn
		if i.MessageErr {
			style = st.Err
		}
		segs = append(segs, segment{s.on(style).Render(oneLine(plain(i.Message))), messagePrio})
	}
	if h := s.hintText(); h != "" {
		segs = append(segs, segment{h, 30})
	}
	return segs
}

// ctx renders the context use, coloured by how full it is.
func (s *StatusBar) ctx() string {
	st := s.common.Styles.Status
	style := st.OK
	switch {
	case s.info.ContextPct >= 90:
		style = st.Err
	case s.info.ContextPct >= 70:
		style = st.Warn
	}
	return s.on(st.Key).Render("ctx ") + s.on(style).Render(fmt.Sprintf("%.0f%%", s.info.ContextPct))
}

// policy renders the sandbox policy: network and confinement.
func (s *StatusBar) policy() string {
	st := s.common.Styles.Status
	net := s.on(st.OK).Render("net off")
	if s.info.Network {
		net = s.on(st.Warn).Render("net on")
	}
	conf := s.on(st.OK).Render("confined")
	if !s.info.Confined {
		conf = s.on(st.Err).Render("unconfined")
	}
	return net + s.on(st.Key).Render(" ") + conf
}

// hintText renders the key hints.
func (s *StatusBar) hintText() string {
	st := s.common.Styles.Help
	parts := make([]string, 0, len(s.hints))
	for _, b := range s.hints {
		if b.Enabled() {
			parts = append(parts, s.on(st.ShortKey).Render(b.Help().Key)+" "+s.on(st.ShortDesc).Render(b.Help().Desc))
		}
	}
	return strings.Join(parts, " ")
}

// orDash returns s, or "—" when empty.
func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// on gives a style the bar's background so segments sit on the bar.
func (s *StatusBar) on(style lipgloss.Style) lipgloss.Style {
	return style.Inherit(s.common.Styles.Status.Bar)
}

// cost renders the spend, against the budget when there is one (warning from 80%), and an
// external agent's own reckoning after it.
func (s *StatusBar) cost() string {
	st, i := s.common.Styles.Status, s.info
	agent := ""
	if i.AgentCost > 0 {
		agent = s.on(st.Key).Render(fmt.Sprintf(" (agent $%.2f)", i.AgentCost))
	}
	if i.Budget <= 0 {
		return s.on(st.Key).Render("$") + s.on(st.Value).Render(fmt.Sprintf("%.2f", i.Cost)) + agent
	}
	style := st.Value
	switch {
	case i.Cost >= i.Budget:
		style = st.Err
	case i.Cost >= 0.8*i.Budget:
		style = st.Warn
	}
	return s.on(st.Key).Render("$") + s.on(style).Render(fmt.Sprintf("%.2f/%.2f", i.Cost, i.Budget)) + agent
}
