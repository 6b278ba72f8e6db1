package app

import (
	"exo/harness/api"
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"exo/views"
)

// onHarness applies the results of harness work and the notices of the bridge.
func (m *Model) onHarness(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case noticesMsg:
		if m.watch == nil {
			return m.onNotices(msg.batch), true
		}
		return tea.Batch(m.onNotices(msg.batch), waitNotices(m.watch.C)), true
	case noticesClosedMsg:
		return m.onWatchClosed(), true
	case watchOpenedMsg:
		return m.onWatchOpened(msg), true
	case reconnectMsg:
		return m.openWatchCmd(m.current()), true
	case activityMsg:
		return m.onActivity(msg), true
	case turnStartedMsg:
		return m.onTurnStarted(msg), true
	case sessionLoadedMsg:
		return m.onLoaded(msg), true
	case siblingsMsg:
		m.sibs = newSiblingSet(msg.all)
		m.siblings.SetRows(m.sibs.rows())
		m.siblings.SetCurrent(m.current())
		return nil, true
	case previewMsg:
		if msg.req == m.prevReq && msg.err == nil {
			m.conv.SetItems(msg.items)
			m.conv.SetPreview(msg.seq)
		}
		return nil, true
	case approvalNotifyMsg:
		return m.onApprovalNotify(msg), true
	case approvalFailedMsg:
		delete(m.answered, msg.callID) // the question shows again
		return m.say(msg.text, true), true
	case approvalArmMsg:
		if ap, ok := m.overlay.(*views.Approval); ok && ap.Request().ID == msg.id {
			ap.Arm()
		}
		return nil, true
	case execDoneMsg:
		m.execCancel = nil
		sb := m.sandboxOf(msg.session)
		if st := sb.Status(); st.Running && st.Command == msg.command {
			// The harness's tool.completed may follow with its own measure.
			sb.SetStatus(views.SandboxStatus{Command: msg.command, ExitCode: msg.exit, Duration: time.Since(st.Started)})
		}
		if msg.err != nil {
			return m.say(msg.err.Error(), true), true
		}
		return nil, true
	case forkedMsg:
		if msg.err != nil {
			return m.say("fork failed: "+msg.err.Error(), true), true
		}
		return tea.Batch(m.say(fmt.Sprintf("forked %s at event %d with its own workspace; enter on it in siblings to switch", msg.s.Name, msg.s.ParentSeq), false), m.siblingsCmd()), true
	case rewindPlanMsg:
		if msg.err != nil {
			return m.say(msg.err.Error(), true), true
		}
		m.overlay = views.NewConfirm(m.common, msg.plan)
		m.resize()
		return nil, true
	case rewoundMsg:
		if msg.err != nil {
			return tea.Batch(m.say("rewind: "+msg.err.Error(), true), m.refreshCmd()), true
		}
		m.conv.ClearPreview()
		return tea.Batch(m.say(fmt.Sprintf("rewound to event %d; the abandoned branch is kept", msg.seq), false), m.loadCmd(msg.s.ID), m.siblingsCmd()), true
	case eventMsg:
		if msg.err != nil {
			return m.say(msg.err.Error(), true), true
		}
		m.overlay = views.NewDetail(m.common, fmt.Sprintf("event %d · %s", msg.ev.Seq, msg.ev.Type), prettyJSON(msg.ev))
		m.resize()
		return nil, true
	case newSessionMsg:
		if msg.err != nil {
			return m.say(msg.err.Error(), true), true
		}
		// A new session waits for its first prompt: typing goes to the input, not to the
		// siblings pane's keys (where n was pressed).
		m.setFocus(focusInput)
		return m.switchTo(msg.s.ID), true
	case splitLoadedMsg:
		m.onSplitLoaded(msg)
		return nil, true
	case modelSetMsg:
		return tea.Batch(m.say("model: "+msg.name, false), m.refreshCmd()), true
	case executorSetMsg:
		return tea.Batch(m.say(msg.text, false), m.refreshCmd()), true
	case conflictDiffMsg:
		return m.showConflictDiff(msg), true
	case takenOverMsg:
		if msg.err != nil {
			return m.say("take over: "+msg.err.Error(), true), true
		}
		return tea.Batch(m.say("took over "+msg.s.Name+": it is this daemon's now", false), m.switchTo(msg.s.ID)), true
	case branchViewMsg:
		if msg.err != nil {
			return m.say(msg.err.Error(), true), true
		}
		m.viewBranch, m.source = msg.branch, msg.source
		m.timeline.SetSource(msg.source)
		if msg.source.abandoned {
			return m.say("timeline: abandoned branch "+msg.branch+" (f forks from it; b: next branch)", false), true
		}
		m.viewBranch = ""
		return m.say("timeline: the live branch", false), true
	}
	return nil, false
}

// onLoaded shows a loaded session, dropping stale loads.
func (m *Model) onLoaded(msg sessionLoadedMsg) tea.Cmd {
	if msg.req != m.loadReq {
		return nil
	}
	m.loading = 0
	if msg.err != nil {
		m.takeEarly("")
		return m.say(msg.err.Error(), true)
	}
	var watch tea.Cmd
	if m.session == nil || m.session.ID != msg.session.ID {
		watch = m.attachWatchCmd(msg.session.ID)
	}
	if m.session == nil || m.session.ID != msg.session.ID || m.session.Branch != msg.session.Branch {
		m.viewBranch = "" // another session, or a rewind: back to the live branch
		m.input.SetHistory(promptHistory(msg.state))
	}
	if m.gone && (m.session == nil || m.session.ID != msg.session.ID) {
		m.gone = false // another session is shown
		m.input.SetNotice("")
	}
	m.showSandbox(msg.session.ID)
	m.siblings.SetCurrent(msg.session.ID)
	sameBranch := m.session != nil && m.session.Branch == msg.session.Branch && m.source != nil
	m.session, m.state, m.model = msg.session, msg.state, msg.model
	m.noModel = msg.modelErr != nil
	m.conv.SetEmptyText("")
	if m.noModel {
		m.conv.SetEmptyText(noModelHelp) // the status bar's message fades and is cut when narrow
	}
	if _, previewing := m.conv.Preview(); !previewing {
		m.conv.SetItems(msg.items)
		m.streaming = false
	}
	m.conv.SetTitle(sessionTitle(msg.session))
	switch {
	case m.viewBranch != "":
		// the timeline shows an abandoned branch: leave it
	case sameBranch:
		m.source.grow(msg.state.Head)
		m.timeline.Refresh()
	default:
		m.source = msg.timeline
		m.timeline.SetSource(m.source)
	}
	m.mcpServers = msg.mcpServers
	m.updateInfo(msg)
	m.showPlan()
	m.input.SetCustomCommands(msg.commands)
	var reload tea.Cmd
	if early, lost := m.takeEarly(msg.session.ID); lost || !m.foldShown(early) {
		reload = m.refreshCmd() // too much came meanwhile, or not on its branch: read it again
	} else if len(early) > 0 {
		m.showProjection()
	}
	sandboxFromLog(m.sandbox, m.state) // a command that ended unwatched (a daemon killed) stops spinning
	watch = tea.Batch(watch, reload)
	if m.noModel {
		return tea.Batch(watch, m.say("no model registered: type /model demo for the offline scripted demo, or exo model register NAME --provider …", true))
	}
	if w := m.opts.Warning; w != "" {
		m.opts.Warning = "" // once
		return tea.Batch(watch, m.say(w, true))
	}
	return watch
}

// onUpdated shows the shown session's new record (a setting another client changed); it says
// true when the session must be read again (its model changed: the model's limits are needed).
func (m *Model) onUpdated(u *api.Session) bool {
	if u.Branch != m.session.Branch {
		return true
	}
	model := u.Settings["model"]
	m.session = u
	i := m.info
	i.Session = sessionTitle(u)
	i.Budget, _ = strconv.ParseFloat(u.Settings["budget_cost"], 64)
	m.info = i
	m.conv.SetTitle(sessionTitle(u))
	return model != "" && model != m.model.Name
}

// updateInfo fills the status bar from a loaded session.
func (m *Model) updateInfo(msg sessionLoadedMsg) {
	i := m.info
	i.Session, i.Model, i.Scripted = sessionTitle(msg.session), msg.model.Name, msg.model.Scripted()
	if m.noModel {
		i.Model = "no model"
	}
	i.Budget, _ = strconv.ParseFloat(msg.session.Settings["budget_cost"], 64)
	if msg.enforced != "" {
		i.Network, i.Confined = msg.network, msg.confined
	}
	i.MCP, i.MCPErr = msg.mcp, msg.mcpBad
	m.info = i
	m.stateInfo()
}

// stateInfo fills the status bar's counters from the shown session's projection.
func (m *Model) stateInfo() {
	st, i := m.state, m.info
	if m.model.ContextWindow > 0 {
		i.ContextPct = 100 * float64(st.LastContext) / float64(m.model.ContextWindow)
	}
	i.TokensIn, i.TokensOut, i.Cost, i.AgentCost = st.Usage.Input, st.Usage.Output, st.Cost, st.AgentCost
	i.TTFT = time.Duration(st.LastTTFTMs) * time.Millisecond
	i.Busy = m.busy()
	m.info = i
}

// onNotices applies a batch of notices: streamed text and output go straight to their panes,
// committed events are folded into the projections of the sessions shown and of the siblings
// pane. Nothing is read again unless events were missed.
func (m *Model) onNotices(batch []api.Notice) tea.Cmd {
	cur := m.current()
	reload, relist, siblings := false, false, false
	var cmds []tea.Cmd
	splitStale := false
	folded := false // the shown session's projection changed and is not on screen yet
	for _, n := range batch {
		if n.Clients != nil {
			m.clients = n.Clients
		}
		if n.Store != nil && m.setStore(n.Store) {
			cmds = append(cmds, m.storeBack())
		}
		if m.sibs != nil {
			changed, again := m.sibs.fold(n)
			relist, siblings = relist || again, siblings || changed
		}
		if n.Lagged && m.splitOn {
			splitStale = true // the split panes missed events too
		}
		m.keepEarly(n.Session, n.Events)
		if n.Turn != nil {
			if folded && n.Session == cur {
				m.showProjection()
				folded = false
			}
			cmds = append(cmds, m.onTurnNotice(n.Session, n.Turn))
		}
		if m.splitOn {
			splitStale = m.splitNotice(n) || splitStale
		}
		if p := n.Progress; p != nil && n.Session == cur {
			cmds = append(cmds, m.say(progressNote(p), false)) // the first snapshot of a big workspace
		}
		if sb, ok := m.sandboxes[n.Session]; ok && len(n.Output) > 0 {
			sb.Update(views.SandboxOutputMsg{Text: string(n.Output)}) // every shown session keeps its own output
		}
		if n.Session != cur {
			continue
		}
		if u := n.Updated; u != nil && m.session != nil && u.ID == m.session.ID {
			reload = reload || m.onUpdated(u)
		}
		if folded && (n.Reasoning != "" || n.Delta != "") {
			m.showProjection() // the committed step first, then what streams after it
			folded = false
		}
		if _, previewing := m.conv.Preview(); !previewing && (n.Reasoning != "" || n.Delta != "") {
			switch {
			case n.SoFar: // the answer from its start, for an app that attached mid-answer
				m.conv.ReplaceStream(n.Reasoning, n.Delta)
			default:
				if n.Reasoning != "" {
					m.conv.AppendThinking(n.Reasoning)
				}
				if n.Delta != "" {
					m.conv.AppendDelta(n.Delta)
				}
			}
			m.streaming = true
		}
		if len(n.Events) > 0 {
			if m.foldShown(n.Events) {
				folded = true
			} else {
				reload = true
			}
		}
		for _, e := range n.Events {
			cmds = append(cmds, m.onEvent(e))
		}
		reload = reload || n.Lagged
	}
	if folded {
		m.showProjection()
	}
	if reload && !m.gone && m.loading == 0 {
		cmds = append(cmds, m.refreshCmd())
	}
	if relist {
		cmds = append(cmds, m.siblingsCmd())
	} else if siblings {
		m.siblings.SetRows(m.sibs.rows())
	}
	if splitStale {
		cmds = append(cmds, m.splitCmd(m.splitIDs))
	}
	if m.scoreboardStale(batch) {
		cmds = append(cmds, m.scoreboardCmd(m.scoreSet))
	}
	return tea.Batch(cmds...)
}

// splitNotice streams a notice into the split view's pane of its session and folds its
// committed events into that pane's projection; it reports whether events were missed (the
// pane is read again).
func (m *Model) splitNotice(n api.Notice) bool {
	for i, id := range m.splitIDs {
		if id != n.Session || i >= len(m.split.Panes()) || i >= len(m.splitStates) {
			continue
		}
		pane, st := m.split.Panes()[i], m.splitStates[i]
		if len(n.Events) > 0 {
			for _, e := range n.Events {
				next, stale := follows(st, e)
				if stale {
					return true
				}
				if next {
					st.Apply(e)
				}
			}
			pane.SetItems(convItems(st))
		}
		switch {
		case n.SoFar:
			pane.ReplaceStream(n.Reasoning, n.Delta)
		default:
			if n.Reasoning != "" {
				pane.AppendThinking(n.Reasoning)
			}
			if n.Delta != "" {
				pane.AppendDelta(n.Delta)
			}
		}
		return n.Lagged
	}
	return false
}

// sandboxWaits pauses the Sandbox pane's timer while a bash command waits for approval and
// starts it when the command is answered: the pane counts the time the command runs, not the
// time it waited for the user (which tool.completed's duration leaves out as well).
func (m *Model) sandboxWaits(waiting bool) {
	st := m.sandbox.Status()
	if !st.Running || st.Waiting == waiting {
		return
	}
	st.Waiting, st.Duration, st.Started = waiting, 0, time.Time{}
	if !waiting {
		st.Started = time.Now()
	}
	m.sandbox.SetStatus(st)
}

// onEvent reacts to one committed event of the current session.
func (m *Model) onEvent(e api.Event) tea.Cmd {
	p, err := api.Decode(e)
	if err != nil {
		return nil
	}
	switch p := p.(type) {
	case *api.ApprovalRequested:
		if p.Tool == "bash" {
			m.sandboxWaits(true)
		}
		return m.approvalAsked(p)
	case *api.ApprovalResolved:
		m.sandboxWaits(false)
		return m.approvalResolved(p)
	case *api.ToolStarted:
		if p.Tool == "bash" {
			m.sandbox.SetStatus(views.SandboxStatus{Command: p.Summary, Running: true, Started: time.Now()})
		}
	case *api.ToolCompleted:
		if p.Tool == "bash" {
			// A call refused before it ran has no exit code: it ends all the same (it stayed
			// "running" for good).
			st := views.SandboxStatus{Command: m.sandbox.Status().Command, Duration: time.Duration(p.DurationMs) * time.Millisecond, NoExitCode: p.ExitCode == nil,
				Interrupted: p.Interrupted}
			if p.ExitCode != nil {
				st.ExitCode = *p.ExitCode
			}
			m.sandbox.SetStatus(st)
		}
	case *api.SecretDenied:
		return m.say("denied: "+p.Reason, true)
	case *api.SessionDeleted:
		name := m.sessionName(m.current())
		m.gone = true
		m.conv.SetTitle(name + " (deleted)")
		m.input.SetNotice("this session was deleted elsewhere: /new starts one, /resume opens another")
		return tea.Batch(m.say(name+" was deleted by another exo (exo session rm); its events stay in the log", true),
			m.notify(name+" was deleted by another exo"))
	}
	return nil
}

// onTurnStarted records a turn this app asked for, or shows why it did not start.
func (m *Model) onTurnStarted(msg turnStartedMsg) tea.Cmd {
	if msg.err != nil {
		m.info.Busy = m.busy()
		text := msg.err.Error()
		if msg.text != "" && strings.TrimSpace(m.input.Value()) == "" {
			m.input.SetValue(msg.text) // a prompt that did not go out is never lost
			text = "not sent: " + text + " (your prompt is back in the input)"
		}
		return tea.Batch(m.say(text, true), m.refreshCmd())
	}
	if m.running[msg.session] == "" {
		m.running[msg.session] = msg.turn
	}
	m.mine[msg.turn] = true
	m.info.Busy = m.busy()
	return nil
}

// onTurnNotice follows turns of every session, whoever started them: the siblings pane and
// the status bar show them running; the end of the current session's turn is reported.
func (m *Model) onTurnNotice(session string, t *api.TurnNotice) tea.Cmd {
	if t.Running {
		m.running[session] = t.ID
		m.info.Busy = m.busy()
		return nil
	}
	if m.running[session] == t.ID {
		delete(m.running, session)
	}
	mine := m.mine[t.ID]
	delete(m.mine, t.ID)
	m.info.Busy = m.busy()
	var note tea.Cmd
	if mine || session == m.current() {
		note = m.notify(turnEndText(m.sessionName(session), t))
	}
	if session != m.current() {
		return note
	}
	m.conv.FinishStream()
	if m.approvalID != "" {
		m.overlay, m.approvalID = nil, ""
		m.resize()
	}
	m.showProjection() // what streamed and was not committed (a cancelled answer) goes
	cmds := []tea.Cmd{note}
	res := t.Result
	switch {
	case t.Error != "":
		cmds = append(cmds, m.say(t.Error, true))
	case res != nil && res.Failure != "":
		cmds = append(cmds, m.say("model failed: "+res.Failure, true))
	case res != nil && res.StepLimit:
		cmds = append(cmds, m.say("the turn stopped at its step limit; send a prompt to carry on", true))
	case res != nil && res.Cancelled && mine:
		cmds = append(cmds, m.say("turn cancelled", false))
	case res != nil && res.Cancelled:
		cmds = append(cmds, m.say("the turn was cancelled elsewhere", false))
	}
	return tea.Batch(cmds...)
}

// turnEndText says how a turn ended, for a notification.
func turnEndText(session string, t *api.TurnNotice) string {
	res := t.Result
	switch {
	case t.Error != "":
		return session + ": the turn failed: " + t.Error
	case res != nil && res.Failure != "":
		return session + ": the model failed: " + res.Failure
	case res != nil && res.Cancelled:
		return session + ": the turn was cancelled"
	case res != nil && res.StepLimit:
		return session + ": the turn stopped at its step limit"
	}
	return session + ": the turn finished"
}

// onSplitLoaded fills the split view with the loaded conversations.
func (m *Model) onSplitLoaded(msg splitLoadedMsg) {
	var panes []*views.Conversation
	for i := range msg.ids {
		c := views.NewConversation(m.common)
		c.SetTitle(msg.names[i])
		c.SetItems(convItems(msg.states[i]))
		panes = append(panes, c)
	}
	m.split.SetPanes(panes...)
	m.splitStates = msg.states
	m.resize()
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// promptHistory lists a session's prompts, oldest first, for the input's up/down history.
func promptHistory(st *api.SessionState) []string {
	var out []string
	for _, it := range st.Items {
		if it.Kind == api.ItemUser {
			out = append(out, it.Text)
		}
	}
	return out
}

// progressNote renders long work's progress for the status bar.
func progressNote(p *api.Progress) string {
	switch {
	case p.Finished:
		return "workspace snapshot done (" + views.Plural(p.Done, "file") + ")"
	case p.Total < 0:
		return "snapshotting the workspace: scanning files…"
	}
	return fmt.Sprintf("snapshotting the workspace: %d/%s", p.Done, views.Plural(p.Total, "file"))
}
