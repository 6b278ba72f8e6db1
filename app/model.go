package app

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"exo/harness/api"
	"exo/themes"
	"exo/views"
)

// focusID names the pane with keyboard focus.
type focusID int

// The focusable panes, in Tab order.
const (
	focusInput focusID = iota
	focusConv
	focusTimeline
	focusSiblings
	focusSandbox
	focusCount
)

// Options configure the TUI.
type Options struct {
	// Session to attach to (id, prefix or name); empty means the latest in Workspace, or a new one.
	Session string
	// Model to use for new turns (registered name); empty keeps the session's or the default.
	Model string
	// Theme is auto, dark, light, high-contrast or no-color.
	Theme string
	// Workspace is the directory new sessions work in.
	Workspace string
	// OverrideGovernance starts even when the constitution changed since 'exo compile'.
	OverrideGovernance bool
	// Executor, when set, is selected for the session the app opens and the ones /new makes
	// (default, claude-code, codex, acp:COMMAND [ARGS]).
	Executor string
	// NewExecutor is the executor of the sessions the app creates when Executor is empty (the
	// configuration's executor).
	NewExecutor string
	// Approval is the user's approval mode for the turns the app starts (auto, ask, read-only;
	// from the configuration): the harness may tighten it by the project's file.
	Approval string
	// Notify lists the notification styles (the configuration's notify); EXO_NOTIFY overrides it.
	Notify string
	// Keys remaps app keys: action (next_pane, prev_pane, zoom, help, quit, mouse, editor,
	// newline) → key names.
	Keys map[string][]string
	// AllowUnconfined lets agents that act themselves (acp:…) run even where their process
	// cannot be fully confined: the user's explicit consent.
	AllowUnconfined bool
	// ExecutorMode is the session mode ACP agents run in (--executor-mode).
	ExecutorMode string
	// Warning is shown in the status bar once the first session is on screen (exo's home inside
	// the workspace).
	Warning string
}

// Model is the root Bubble Tea model: layout, focus, routing and harness work in commands.
type Model struct {
	c    api.Client
	opts Options

	common   *views.Common
	conv     *views.Conversation
	input    *views.Input
	timeline *views.Timeline
	siblings *views.Siblings
	sandbox  *views.Sandbox
	// plan shows the shown session's plan (the agent's to-do list) above the input.
	plan *views.PlanView
	// sandboxes holds each shown session's sandbox pane (its own output and command); sandbox is
	// the current session's.
	sandboxes map[string]*views.Sandbox
	status    *views.StatusBar
	split     *views.Split
	overlay   views.Pane

	// watch streams every session's notices from the harness; nil until it is open.
	watch *api.Watcher
	// offline is set while the app has no watch open because the daemon stopped answering
	// (killed, crashed, stopped): it reconnects, which starts a new daemon. held is a prompt
	// submitted meanwhile: it stays in the input and is sent once the app is back, if the input
	// still holds it. lostTurn records that the current session's turn ran when the daemon
	// went away; daemonPid is the daemon last seen, to tell the user when it was replaced.
	offline   bool
	held      string
	lostTurn  bool
	daemonPid int

	focus    focusID
	zoom     bool
	splitOn  bool
	splitIDs []string
	// score is the attempt set on the scoreboard (scoreSet its id), scoreRows its rows as
	// shown, sorted by column scoreSort (-1: in the set's order).
	score     api.AttemptSet
	scoreSet  string
	scoreRows []api.AttemptRow
	scoreSort int
	width     int
	height    int
	lay       layout

	session *api.Session
	state   *api.SessionState
	model   api.ModelSpec
	noModel bool
	// gone is set when the session shown was deleted by another client (session.deleted):
	// nothing can be added to it, and it is not reloaded.
	gone    bool
	source  *timelineSource
	info    views.StatusInfo
	loadReq uint64
	prevReq uint64
	// loading is the load the app waits for (0: none); early holds the committed events that
	// came meanwhile, by session (earlyN of them; earlyLost when there were too many), to fold
	// on top of its snapshot.
	loading   uint64
	early     map[string][]api.Event
	earlyN    int
	earlyLost bool
	// mcpServers is the shown session's MCP servers' state, followed through mcp.server events.
	mcpServers []api.MCPStatus
	// sibs is the siblings pane's projection (nil until the first listing); splitStates are the
	// projections of the sessions the split view shows, by pane.
	sibs        *siblingSet
	splitStates []*api.SessionState
	// running maps sessions with a turn running in the harness to the turn's id (from turn
	// notices and the session list, whoever started it); mine holds the turns this app started.
	running map[string]string
	mine    map[string]bool
	clients map[string]int
	// storeDown is the daemon's shared store not answering (nil while it answers): a banner
	// across the top says so.
	storeDown  *api.StoreState
	storeAt    time.Time // when the store's state last changed, as the daemon said
	execCancel context.CancelFunc
	ctrlCAt    time.Time
	msgID      int
	themeSet   bool
	streaming  bool
	// viewBranch is the branch the timeline shows when it is not the session's current one
	// (an abandoned branch, reachable with b).
	viewBranch string
	// approvalID is the tool call the approval overlay asks about ("" when none is shown).
	approvalID string
	// answered holds the calls this app answered whose approval.resolved has not come yet.
	answered map[string]bool
	// ticking is set while the spinner clock runs (only while something animates).
	ticking bool
	// blurred is set while the terminal reports it does not have focus (notifications go out
	// then); notifyWith are the notification styles (EXO_NOTIFY).
	blurred    bool
	notifyWith map[string]bool
	// mouse is set while the app captures the mouse (the wheel scrolls panes, a drag selects
	// and copies text); on by default, alt+m gives the mouse back to the terminal.
	mouse bool
	// sel is the text the user selects by dragging in a pane (see selection).
	sel selection
	// quitting is set while the quit question (keep turns running or stop them) is shown.
	quitting bool
}

// New builds the root model over a harness client.
func New(hc api.Client, opts Options) *Model {
	st, err := themes.ByName(opts.Theme, true, themes.NoColorRequested())
	if err != nil {
		st = themes.Dark()
	}
	c := views.NewCommon(st)
	m := &Model{c: hc, opts: opts, common: c, mouse: true, running: map[string]string{}, mine: map[string]bool{}, clients: map[string]int{}, sandboxes: map[string]*views.Sandbox{},
		conv: views.NewConversation(c), input: views.NewInput(c), timeline: views.NewTimeline(c),
		siblings: views.NewSiblings(c), sandbox: views.NewSandbox(c, 5000), status: views.NewStatusBar(c), split: views.NewSplit(c), plan: views.NewPlanView(c)}
	m.notifyWith = notifyStyles(opts.Notify)
	applyKeys(c, m.input, opts.Keys)
	m.themeSet = opts.Theme != "" && opts.Theme != themes.NameAuto
	m.input.Focus()
	return m
}

// Init starts the harness bridge, loads the session and asks for the terminal background.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.openWatchCmd(""), m.attachCmd(), m.siblingsCmd()}
	if !m.themeSet {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	return tea.Batch(cmds...)
}

// panes returns the focusable panes by focus id.
func (m *Model) pane(f focusID) views.Pane {
	switch f {
	case focusConv:
		if m.splitOn {
			return m.split
		}
		return m.conv
	case focusTimeline:
		return m.timeline
	case focusSiblings:
		return m.siblings
	case focusSandbox:
		return m.sandbox
	}
	return m.input
}

// setFocus moves keyboard focus.
func (m *Model) setFocus(f focusID) {
	m.pane(m.focus).Blur()
	m.focus = (f + focusCount) % focusCount
	m.pane(m.focus).Focus()
	m.resize()
}

// sandboxOf returns a session's sandbox pane, made on first use.
func (m *Model) sandboxOf(id string) *views.Sandbox {
	sb, ok := m.sandboxes[id]
	if !ok {
		sb = views.NewSandbox(m.common, views.DefaultScrollback)
		m.sandboxes[id] = sb
	}
	return sb
}

// showSandbox makes the sandbox pane show session id's output, keeping focus where it was.
func (m *Model) showSandbox(id string) {
	sb := m.sandboxOf(id)
	if sb == m.sandbox {
		return
	}
	if m.focus == focusSandbox {
		m.sandbox.Blur()
		sb.Focus()
	}
	m.sandbox = sb
	m.resize()
}

// current returns the current session id, or "".
func (m *Model) current() string {
	if m.session == nil {
		return ""
	}
	return m.session.ID
}

// busy reports whether a turn runs on the current session.
func (m *Model) busy() bool { return m.running[m.current()] != "" }
