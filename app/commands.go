package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"

	"exo/harness/api"
	"exo/views"
)

// bg is the context of the app's harness calls: they are short, and a turn does not depend on
// the call that started it.
var bg = context.Background()

// attachCmd finds the session to show: the one asked for, else the newest in the workspace,
// else a new one.
func (m *Model) attachCmd() tea.Cmd {
	c, opts := m.c, m.opts
	m.loadReq++
	req := m.loadReq
	m.loading = req
	return func() tea.Msg {
		s, err := pickSession(c, opts)
		if err == nil {
			err = selectExecutor(c, opts, s)
		}
		if err != nil {
			return sessionLoadedMsg{req: req, err: err}
		}
		return load(c, s.ID, req)
	}
}

// pickSession resolves Options.Session, or the workspace's most recently used session (its
// newest prompt, or its creation; archived ones left out), or makes one.
func pickSession(c api.Client, o Options) (*api.Session, error) {
	if o.Session != "" {
		return c.Session(bg, o.Session)
	}
	all, err := c.ListSessions(bg)
	if err != nil {
		return nil, err
	}
	ws, _ := filepath.Abs(o.Workspace)
	var best *api.SessionInfo
	for i := range all {
		in := &all[i]
		if in.Session.Workspace != ws || in.Session.Archived || in.Orphaned {
			continue // an archived session is hidden, as from exo run -c
		}
		if best == nil || !in.LastUsed.Before(best.LastUsed) {
			best = in
		}
	}
	if best != nil {
		return best.Session, nil
	}
	s, err := c.NewSession(bg, api.NewSessionRequest{Workspace: ws, OverrideGovernance: o.OverrideGovernance})
	if err == nil && o.Model != "" {
		s, err = c.SetSetting(bg, s.ID, "model", o.Model)
	}
	if err == nil {
		err = newExecutor(c, o, s)
	}
	return s, err
}

// newExecutor selects the configuration's executor for a session the app created (unless an
// --executor flag names one for every session).
func newExecutor(c api.Client, o Options, s *api.Session) error {
	if o.Executor != "" || o.NewExecutor == "" || o.NewExecutor == "default" {
		return nil
	}
	_, err := c.SelectExecutor(bg, s.ID, o.NewExecutor)
	return err
}

// selectExecutor selects the executor the app was opened with for a session, if any.
func selectExecutor(c api.Client, o Options, s *api.Session) error {
	if o.Executor == "" {
		return nil
	}
	_, err := c.SelectExecutor(bg, s.ID, o.Executor)
	return err
}

// executorCmd selects the session's executor (/executor NAME), or says which one is in force.
func (m *Model) executorCmd(name string) tea.Cmd {
	id, c := m.current(), m.c
	return func() tea.Msg {
		if name == "" {
			s, err := c.Session(bg, id)
			if err != nil {
				return infoMsg{text: err.Error(), err: true}
			}
			st, err := c.State(bg, s.Branch)
			if err != nil {
				return infoMsg{text: err.Error(), err: true}
			}
			cur := st.Executor
			if cur == "" {
				cur = "default"
			}
			if st.ExecutorNative {
				cur += " with its own tools"
			}
			return infoMsg{text: "executor: " + cur + " — /executor default|claude-code|codex [--native-tools]|acp:COMMAND [ARGS] changes it for the next turn (exo doctor shows which are usable)"}
		}
		in, err := c.SelectExecutor(bg, id, name)
		if err != nil {
			return infoMsg{text: "/executor: " + err.Error(), err: true}
		}
		text := "executor: " + in.Name
		if in.Version != "" {
			text += " (" + in.Version + ")"
		}
		if in.NativeTools {
			text += " with its own tools, each use approved by exo"
		}
		return executorSetMsg{text: text + "; the next turn runs with it"}
	}
}

// executorSetMsg reports that the session's executor changed.
type executorSetMsg struct{ text string }

// loadCmd loads a session for display.
func (m *Model) loadCmd(id string) tea.Cmd {
	m.loadReq++
	c, req := m.c, m.loadReq
	m.loading = req
	return func() tea.Msg { return load(c, id, req) }
}

// load reads a session's record, projection, model and sandbox policy.
func load(c api.Client, id string, req uint64) sessionLoadedMsg {
	s, err := c.Session(bg, id)
	if err != nil {
		return sessionLoadedMsg{req: req, err: err}
	}
	st, err := c.State(bg, s.Branch)
	if err != nil {
		return sessionLoadedMsg{req: req, err: err}
	}
	out := sessionLoadedMsg{req: req, session: s, state: st, items: convItems(st),
		timeline: newTimelineSource(c, s.Branch, st.Head, false)}
	out.model, out.modelErr = c.Model(bg, s.Settings["model"])
	if s.Workspace != "" && s.Node == "" { // another daemon's session: its sandbox is there
		if enf, err := c.Enforcement(bg, s.ID); err == nil {
			out.enforced, out.network, out.confined = enf.Summary, enf.Network, enf.Confined
		} else {
			out.enforced = err.Error()
		}
		st, err := c.MCPStatus(bg, s.Workspace, false)
		out.mcp, out.mcpBad = api.MCPSummary(st, err)
		if err == nil {
			out.mcpServers = st
		}
		if cmds, err := c.Commands(bg, s.Workspace); err == nil {
			for _, cmd := range cmds {
				out.commands = append(out.commands, views.SlashCommand{Name: cmd.Name, Args: cmd.ArgumentHint, Help: cmd.Description})
			}
		}
	}
	return out
}

// refreshCmd reads the current session again: after a (re)connection, a missed stretch of its
// events, or a user action that changed what the events do not say (its model, its executor).
func (m *Model) refreshCmd() tea.Cmd {
	if m.session == nil {
		return nil
	}
	return m.loadCmd(m.session.ID)
}

// siblingsCmd lists every session for the siblings pane, which then follows them from the
// watch stream (siblingSet).
func (m *Model) siblingsCmd() tea.Cmd {
	c := m.c
	return func() tea.Msg {
		all, err := c.ListSessions(bg)
		if err != nil {
			return infoMsg{text: err.Error(), err: true}
		}
		return siblingsMsg{all: all}
	}
}

// promptCmd asks the harness to run a turn for text; its events stream through the watch and
// its end arrives as a turn notice.
func (m *Model) promptCmd(text, busy string) tea.Cmd {
	id, c, override, mode, unconfined, xmode := m.current(), m.c, m.opts.OverrideGovernance, m.opts.Approval, m.opts.AllowUnconfined, m.opts.ExecutorMode
	return func() tea.Msg {
		t, err := c.StartTurn(bg, api.TurnRequest{Session: id, Text: text, Source: "tui", OverrideGovernance: override, Approval: mode,
			AllowUnconfined: unconfined, ExecutorMode: xmode, WhenBusy: busy})
		return turnStartedMsg{session: id, turn: t.ID, text: text, err: err}
	}
}

// cancelTurnCmd asks the harness to stop the turn running on a session.
func (m *Model) cancelTurnCmd(id string) tea.Cmd {
	c := m.c
	return func() tea.Msg {
		if err := c.CancelTurn(bg, id); err != nil {
			return infoMsg{text: "cancel: " + err.Error(), err: true}
		}
		return nil
	}
}

// execCmd runs a user shell command in the session's sandbox; Ctrl-C stops it.
func (m *Model) execCmd(command string) tea.Cmd {
	id, c := m.current(), m.c
	ctx, cancel := context.WithCancel(bg)
	m.execCancel = cancel
	m.sandboxOf(id).SetStatus(views.SandboxStatus{Command: command, Running: true, Started: time.Now()})
	return func() tea.Msg {
		defer cancel()
		res, err := c.Exec(ctx, api.ExecRequest{Session: id, Command: command}, nil)
		if err != nil && ctx.Err() != nil {
			return execDoneMsg{session: id, command: command, exit: -1, err: errors.New("stopped: " + command)}
		}
		return execDoneMsg{session: id, command: command, exit: res.ExitCode, err: err}
	}
}

// forkCmd forks the current session at seq (of branch, or its current branch when empty) into a
// new sibling with its own workspace.
func (m *Model) forkCmd(seq uint64, branch string) tea.Cmd {
	id, c := m.current(), m.c
	return func() tea.Msg {
		s, err := c.Fork(bg, api.ForkRequest{Session: id, Seq: seq, Branch: branch})
		return forkedMsg{s: s, err: err}
	}
}

// rewindPlanCmd works out what a rewind to seq would undo.
func (m *Model) rewindPlanCmd(seq uint64) tea.Cmd {
	id, c := m.current(), m.c
	return func() tea.Msg {
		p, err := c.RewindPreview(bg, id, seq)
		return rewindPlanMsg{plan: views.RewindPlan{Seq: seq, Events: p.Events, Files: p.Files}, err: err}
	}
}

// rewindCmd rewinds the current session to seq, files included.
func (m *Model) rewindCmd(seq uint64) tea.Cmd {
	id, c := m.current(), m.c
	return func() tea.Msg {
		s, err := c.Rewind(bg, id, seq)
		return rewoundMsg{s: s, seq: seq, err: err}
	}
}

// previewCmd projects the conversation as of seq (time travel while scrubbing).
func (m *Model) previewCmd(branch string, seq uint64) tea.Cmd {
	m.prevReq++
	c, req := m.c, m.prevReq
	if branch == "" && m.session != nil {
		branch = m.session.Branch
	}
	return func() tea.Msg {
		st, err := c.StateAt(bg, branch, seq)
		if err != nil {
			return previewMsg{req: req, err: err}
		}
		return previewMsg{req: req, seq: seq, items: convItems(st)}
	}
}

// eventCmd reads one event for the detail overlay.
func (m *Model) eventCmd(branch string, seq uint64) tea.Cmd {
	c := m.c
	if branch == "" && m.session != nil {
		branch = m.session.Branch
	}
	return func() tea.Msg {
		evs, err := c.Events(bg, branch, seq, seq)
		if err != nil || len(evs) == 0 {
			return eventMsg{err: fmt.Errorf("event %d: %v", seq, err)}
		}
		return eventMsg{ev: evs[0]}
	}
}

// newSessionCmd starts a new session in the project of the session shown: its own directory,
// never a fork's private working copy.
func (m *Model) newSessionCmd() tea.Cmd {
	c, ws, override, opts := m.c, m.opts.Workspace, m.opts.OverrideGovernance, m.opts
	if m.session != nil && m.session.Workspace != "" {
		ws = m.session.Workspace
		if p := m.session.Settings["project"]; p != "" {
			ws = p // set on forks: the directory the first session of the tree works in
		}
	}
	return func() tea.Msg {
		s, err := c.NewSession(bg, api.NewSessionRequest{Workspace: ws, OverrideGovernance: override})
		if err == nil {
			err = selectExecutor(c, opts, s)
		}
		if err == nil {
			err = newExecutor(c, opts, s)
		}
		return newSessionMsg{s: s, err: err}
	}
}

// resolveApprovalCmd answers an approval; the first answer of any client wins.
func (m *Model) resolveApprovalCmd(callID, decision string) tea.Cmd {
	id, c := m.current(), m.c
	return func() tea.Msg {
		err := c.Approve(bg, id, callID, decision)
		if errors.Is(err, api.ErrResolved) {
			return infoMsg{text: "that approval was already answered (in another window?)"}
		}
		if err != nil {
			return approvalFailedMsg{callID: callID, text: "the answer did not reach the harness: " + err.Error()}
		}
		return nil
	}
}

// setModelCmd makes a registered model the session's model.
func (m *Model) setModelCmd(name string) tea.Cmd {
	id, c := m.current(), m.c
	return func() tea.Msg {
		if _, err := c.Model(bg, name); err != nil {
			if name != "demo" {
				return infoMsg{text: err.Error(), err: true}
			}
			// The offline demo is one command away: register the built-in scripted model.
			if _, err := c.RegisterModel(bg, api.ModelSpec{Name: "demo", Provider: "scripted"}); err != nil {
				return infoMsg{text: err.Error(), err: true}
			}
		}
		if _, err := c.SetSetting(bg, id, "model", name); err != nil {
			return infoMsg{text: err.Error(), err: true}
		}
		return modelSetMsg{name: name}
	}
}

// splitCmd loads the conversations of the sessions shown side by side.
func (m *Model) splitCmd(ids []string) tea.Cmd {
	c := m.c
	return func() tea.Msg {
		out := splitLoadedMsg{}
		for _, id := range ids {
			s, err := c.Session(bg, id)
			if err != nil {
				continue
			}
			st, err := c.State(bg, s.Branch)
			if err != nil {
				continue
			}
			out.ids, out.names, out.states = append(out.ids, s.ID), append(out.names, s.Name), append(out.states, st)
		}
		return out
	}
}

// fadeCmd clears status message id after a while.
func fadeCmd(id int) tea.Cmd {
	return tea.Tick(6*time.Second, func(time.Time) tea.Msg { return fadeMsg{id: id} })
}

// prettyJSON indents an event for the detail overlay, &, < and > as themselves.
func prettyJSON(v any) []byte {
	var b bytes.Buffer
	if err := views.WriteJSON(&b, v, "  "); err != nil {
		return []byte(err.Error())
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// branchViewMsg carries the timeline of another branch of the session.
type branchViewMsg struct {
	branch string
	source *timelineSource
	err    error
}

// cycleBranch shows the next branch of the session in the timeline: the current one, then the
// abandoned ones, newest first.
func (m *Model) cycleBranch() tea.Cmd {
	if m.session == nil || len(m.session.Branches) < 2 {
		return m.say("this session has no abandoned branches (a rewind leaves one)", false)
	}
	order := []string{m.session.Branch}
	for i := len(m.session.Branches) - 1; i >= 0; i-- {
		if b := m.session.Branches[i]; b != m.session.Branch {
			order = append(order, b)
		}
	}
	cur := m.viewBranch
	if cur == "" {
		cur = m.session.Branch
	}
	next := order[0]
	for i, b := range order {
		if b == cur {
			next = order[(i+1)%len(order)]
		}
	}
	c, abandoned := m.c, next != m.session.Branch
	return func() tea.Msg {
		st, err := c.State(bg, next)
		if err != nil {
			return branchViewMsg{err: err}
		}
		return branchViewMsg{branch: next, source: newTimelineSource(c, next, st.Head, abandoned)}
	}
}

// modelSetMsg reports that the session's model changed.
type modelSetMsg struct{ name string }
