// Command demo shows every exo pane in a fixed layout with fake data, so the
// components can be looked at and tried in a real terminal:
//
//	go run ./views/internal/demo [-theme dark|light|high-contrast|no-color]
//
// It is a test bench for views/, not the app: app/ owns the real layout.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"exo/themes"
	"exo/views"
)

func main() {
	theme := flag.String("theme", "dark", "theme name")
	flag.Parse()
	st, err := themes.ByName(*theme, true, themes.NoColorRequested())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if _, err := tea.NewProgram(newModel(views.NewCommon(st))).Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// streamMsg delivers the next fake delta.
type streamMsg struct{}

// model is the demo's root: panes, focus, an optional overlay.
type model struct {
	c       *views.Common
	conv    *views.Conversation
	tl      *views.Timeline
	sib     *views.Siblings
	sb      *views.Sandbox
	in      *views.Input
	bar     *views.StatusBar
	panes   []views.Pane
	focus   int
	overlay views.Pane
	w, h    int
	deltas  []string
	rows    views.TimelineRows
	items   []views.ConvItem
	sbLine  int
}

func newModel(c *views.Common) *model {
	m := &model{c: c, conv: views.NewConversation(c), tl: views.NewTimeline(c), sib: views.NewSiblings(c),
		sb: views.NewSandbox(c, 0), in: views.NewInput(c), bar: views.NewStatusBar(c)}
	m.panes = []views.Pane{m.in, m.conv, m.tl, m.sib, m.sb}
	m.items = fakeItems()
	m.conv.SetItems(m.items)
	m.rows = fakeRows(2000)
	m.tl.SetSource(m.rows)
	m.sib.SetRows(fakeSiblings())
	m.sb.SetStatus(views.SandboxStatus{Command: "go test ./...", Running: true})
	m.bar.SetInfo(views.StatusInfo{Session: "health-check", Model: "demo", Scripted: true, ContextPct: 37,
		TokensIn: 48200, TokensOut: 3100, Cost: 0.42, TTFT: 420 * time.Millisecond, Confined: true})
	m.in.Focus()
	return m
}

func (m *model) Init() tea.Cmd { return tea.Batch(views.SpinnerTick(), tea.RequestBackgroundColor) }

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.layout()
	case views.SpinnerTickMsg:
		for _, p := range m.panes {
			p.Update(msg)
		}
		m.bar.Tick()
		m.sbLine++
		m.sb.Write(fmt.Sprintf("\x1b[32mok\x1b[0m  exo/pkg%d\t0.%03ds\n", m.sbLine, m.sbLine%1000))
		return m, views.SpinnerTick()
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg, tea.MouseWheelMsg:
		_, cmd := m.panes[m.focus].Update(msg)
		return m, cmd
	case streamMsg:
		return m, m.stream()
	}
	return m, m.request(msg)
}

// key routes a key: global keys first, then an overlay, then the focused pane.
func (m *model) key(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "ctrl+c", "ctrl+q":
		return tea.Quit
	}
	if m.overlay != nil {
		_, cmd := m.overlay.Update(msg)
		return cmd
	}
	inInput := m.focus == 0
	switch {
	case msg.String() == "tab" && !(inInput && len(m.in.Completions()) > 0):
		m.setFocus(m.focus + 1)
		return nil
	case msg.String() == "shift+tab":
		m.setFocus(m.focus + len(m.panes) - 1)
		return nil
	case msg.String() == "?" && !inInput:
		h := views.NewHelp(m.c)
		h.SetKeyMap("Focused pane", m.panes[m.focus])
		m.overlay = h
		m.layout()
		return nil
	}
	_, cmd := m.panes[m.focus].Update(msg)
	return cmd
}

// request applies the messages panes send.
func (m *model) request(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case views.SubmitMsg:
		m.conv.Append(views.ConvItem{Kind: views.KindUser, Text: msg.Text})
		m.conv.ScrollToBottom()
		m.deltas = strings.SplitAfter(fakeAnswer, " ")
		m.bar.SetInfo(withBusy(m.bar.Info(), true))
		return m.stream()
	case views.TimelineSelectMsg:
		if !m.tl.IsCurrent(msg) {
			return nil
		}
		if msg.Latest {
			m.conv.ClearPreview()
			m.conv.SetItems(m.items)
		} else {
			m.conv.SetPreview(msg.Seq)
			m.conv.SetItems(m.items[:min(int(msg.Seq)%len(m.items)+1, len(m.items))])
		}
	case views.ExitPreviewMsg:
		m.conv.ClearPreview()
		m.conv.SetItems(m.items)
	case views.RewindRequest:
		m.overlay = views.NewConfirm(m.c, views.RewindPlan{Seq: msg.Seq, Events: len(m.rows) - int(msg.Seq), Files: []string{"main.go", "go.mod"}})
	case views.ShowEvent:
		m.overlay = views.NewDetail(m.c, fmt.Sprintf("#%d", msg.Seq), []byte(fmt.Sprintf(`{"seq":%d,"type":"tool.completed","data":{"exit_code":0}}`, msg.Seq)))
	case views.ForkRequest, views.SwitchSession, views.NewSession, views.ToggleSplit, views.SlashCommandMsg, views.ShellCommandMsg:
		m.bar.SetInfo(withMessage(m.bar.Info(), fmt.Sprintf("%T %v", msg, msg)))
	case views.RewindConfirmed, views.RewindCanceled, views.CloseOverlay, views.ApprovalDecision:
		m.overlay = nil
	}
	m.layout()
	return nil
}

// stream sends the next fake delta.
func (m *model) stream() tea.Cmd {
	if len(m.deltas) == 0 {
		m.conv.FinishStream()
		m.bar.SetInfo(withBusy(m.bar.Info(), false))
		return nil
	}
	m.conv.AppendDelta(m.deltas[0])
	m.deltas = m.deltas[1:]
	return tea.Tick(15*time.Millisecond, func(time.Time) tea.Msg { return streamMsg{} })
}

func (m *model) setFocus(i int) {
	m.panes[m.focus].Blur()
	m.focus = i % len(m.panes)
	m.panes[m.focus].Focus()
	m.bar.SetHints(m.panes[m.focus].ShortHelp())
}

// layout sizes every pane from the terminal size.
func (m *model) layout() {
	mh := max(m.h-6, 3)
	cw := m.w * 62 / 100
	rw := m.w - cw
	m.conv.SetSize(cw, mh)
	m.tl.SetSize(rw, mh/2)
	m.sib.SetSize(rw, mh/4)
	m.sb.SetSize(rw, mh-mh/2-mh/4)
	m.in.SetSize(m.w, 5)
	m.bar.SetWidth(m.w)
	if m.overlay != nil {
		m.overlay.SetSize(max(m.w-8, 10), max(m.h-6, 5))
	}
}

func (m *model) View() tea.View {
	right := lipgloss.JoinVertical(lipgloss.Left, m.tl.View(), m.sib.View(), m.sb.View())
	main := lipgloss.JoinHorizontal(lipgloss.Top, m.conv.View(), right)
	screen := lipgloss.JoinVertical(lipgloss.Left, main, m.in.View(), m.bar.View())
	if m.overlay != nil {
		screen = views.Overlay(screen, m.overlay.View())
	} else if pop := m.in.PopupView(48); pop != "" && m.focus == 0 {
		screen = views.Overlay(screen, pop)
	}
	v := tea.NewView(screen)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	return v
}

func withBusy(i views.StatusInfo, b bool) views.StatusInfo { i.Busy = b; return i }

func withMessage(i views.StatusInfo, s string) views.StatusInfo { i.Message = s; return i }
