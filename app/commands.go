package app

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"

	"exo/harness"
	"exo/harness/commands"
	"exo/harness/governance"
	"exo/harness/mcp"
	"exo/views"
)

// attachCmd finds the session to show: the one asked for, else the newest in the workspace,
// else a new one.
func (m *Model) attachCmd() tea.Cmd {
	h, opts := m.h, m.opts
	m.loadReq++
	req := m.loadReq
	return func() tea.Msg {
		s, err := pickSession(h, opts)
		if err != nil {
			return sessionLoadedMsg{req: req, err: err}
		}
		return load(h, s.ID, req)
	}
}

// pickSession resolves Options.Session, or the newest session of the workspace, or makes one.
func pickSession(h *harness.Harness, o Options) (*harness.Session, error) {
	if o.Session != "" {
		return h.Session(o.Session)
	}
	all, err := h.Sessions()
	if err != nil {
		return nil, err
	}
	ws, _ := filepath.Abs(o.Workspace)
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].Workspace == ws {
			return all[i], nil
		}
	}
	s, err := h.NewSession(harness.NewSessionOptions{Workspace: ws})
	if err == nil && o.Model != "" {
		s, err = h.UpdateSession(s.ID, func(s *harness.Session) error { s.Settings = map[string]string{"model": o.Model}; return nil })
	}
	return s, err
}

// loadCmd loads a session for display.
func (m *Model) loadCmd(id string) tea.Cmd {
	m.loadReq++
	h, req := m.h, m.loadReq
	return func() tea.Msg { return load(h, id, req) }
}

// load reads a session's record, projection, model and sandbox policy.
func load(h *harness.Harness, id string, req uint64) sessionLoadedMsg {
	s, err := h.Session(id)
	if err != nil {
		return sessionLoadedMsg{req: req, err: err}
	}
	st, err := h.BranchState(s.Branch)
	if err != nil {
		return sessionLoadedMsg{req: req, err: err}
	}
	out := sessionLoadedMsg{req: req, session: s, state: st, items: convItems(st),
		timeline: newTimelineSource(h, s.Branch, st.Head, false)}
	out.model, out.modelErr = h.Model(s.Settings["model"])
	if s.Workspace != "" {
		h.PrepareBaseline(s.ID) // the first snapshot of a large workspace runs while the user types
		if enf, err := h.Enforcement(s.ID); err == nil {
			out.enforced, out.network, out.confined = enf.String(), enf.NetworkAllowed, enf.Confined()
		} else {
			out.enforced = err.Error()
		}
		out.mcp, out.mcpBad = mcp.Summary(h, s.Workspace)
		for _, c := range commands.Discover(s.Workspace) {
			out.commands = append(out.commands, views.SlashCommand{Name: c.Name, Args: c.ArgumentHint, Help: c.Description})
		}
	}
	return out
}

// refreshCmd reloads the current session after new events.
func (m *Model) refreshCmd() tea.Cmd {
	if m.session == nil {
		return nil
	}
	return m.loadCmd(m.session.ID)
}

// siblingsCmd reloads the siblings pane rows.
func (m *Model) siblingsCmd() tea.Cmd {
	h, cur, tr := m.h, m.current(), m.tracker
	running := map[string]bool{}
	for id := range m.running {
		running[id] = true
	}
	return func() tea.Msg {
		rows, err := siblingRows(h, cur, running, driftOf(tr))
		if err != nil {
			return infoMsg{text: err.Error(), err: true}
		}
		return siblingsMsg{rows: rows}
	}
}

// promptCmd runs a turn for text in the background; its events stream through the bridge.
func (m *Model) promptCmd(text string) tea.Cmd {
	id := m.current()
	ctx, cancel := context.WithCancel(context.Background())
	m.running[id] = cancel
	x := m.x
	return func() tea.Msg {
		res, err := x.Prompt(ctx, id, text, "tui")
		return turnDoneMsg{session: id, res: res, err: err}
	}
}

// execCmd runs a user shell command in the session's sandbox.
func (m *Model) execCmd(command string) tea.Cmd {
	id, h := m.current(), m.h
	m.sandbox.SetStatus(views.SandboxStatus{Command: command, Running: true})
	return func() tea.Msg {
		res, err := h.UserExec(context.Background(), id, command, harness.ExecOptions{})
		return execDoneMsg{session: id, command: command, exit: res.ExitCode, err: err}
	}
}

// forkCmd forks the current session at seq (of branch, or its current branch when empty) into a
// new sibling with its own workspace.
func (m *Model) forkCmd(seq uint64, branch string) tea.Cmd {
	id, h := m.current(), m.h
	return func() tea.Msg {
		s, err := h.Fork(id, seq, harness.ForkOptions{Branch: branch})
		return forkedMsg{s: s, err: err}
	}
}

// rewindPlanCmd works out what a rewind to seq would undo.
func (m *Model) rewindPlanCmd(seq uint64) tea.Cmd {
	id, h := m.current(), m.h
	return func() tea.Msg {
		n, files, err := h.RewindPreview(id, seq)
		return rewindPlanMsg{plan: views.RewindPlan{Seq: seq, Events: n, Files: files}, err: err}
	}
}

// rewindCmd rewinds the current session to seq, files included.
func (m *Model) rewindCmd(seq uint64) tea.Cmd {
	id, h := m.current(), m.h
	return func() tea.Msg {
		s, err := h.Rewind(id, seq)
		return rewoundMsg{s: s, seq: seq, err: err}
	}
}

// previewCmd projects the conversation as of seq (time travel while scrubbing).
func (m *Model) previewCmd(branch string, seq uint64) tea.Cmd {
	m.prevReq++
	h, req := m.h, m.prevReq
	if branch == "" && m.session != nil {
		branch = m.session.Branch
	}
	return func() tea.Msg {
		st, _, err := h.LoadState(branch, seq, true)
		if err != nil {
			return previewMsg{req: req, err: err}
		}
		return previewMsg{req: req, seq: seq, items: convItems(st)}
	}
}

// eventCmd reads one event for the detail overlay.
func (m *Model) eventCmd(branch string, seq uint64) tea.Cmd {
	h := m.h
	if branch == "" && m.session != nil {
		branch = m.session.Branch
	}
	return func() tea.Msg {
		evs, err := h.BranchEvents(branch, seq, seq)
		if err != nil || len(evs) == 0 {
			return eventMsg{err: fmt.Errorf("event %d: %v", seq, err)}
		}
		return eventMsg{ev: evs[0]}
	}
}

// newSessionCmd starts a new session in the workspace.
func (m *Model) newSessionCmd() tea.Cmd {
	h, ws := m.h, m.opts.Workspace
	if m.session != nil && m.session.Workspace != "" {
		ws = m.session.Workspace
	}
	return func() tea.Msg {
		s, err := h.NewSession(harness.NewSessionOptions{Workspace: ws})
		return newSessionMsg{s: s, err: err}
	}
}

// resolveApprovalCmd records the user's approval decision.
func (m *Model) resolveApprovalCmd(callID, decision string) tea.Cmd {
	id, h := m.current(), m.h
	return func() tea.Msg {
		_, err := h.Append(id, harness.MustRecord(harness.TypeApprovalResolved, harness.ActorUser,
			harness.ApprovalResolved{CallID: callID, Decision: decision}))
		if err != nil {
			return infoMsg{text: err.Error(), err: true}
		}
		return nil
	}
}

// setModelCmd makes a registered model the session's model.
func (m *Model) setModelCmd(name string) tea.Cmd {
	id, h := m.current(), m.h
	return func() tea.Msg {
		if _, err := h.Model(name); err != nil {
			if name != "demo" {
				return infoMsg{text: err.Error(), err: true}
			}
			// The offline demo is one command away: register the built-in scripted model.
			if _, err := h.RegisterModel(harness.ModelSpec{Name: "demo", Provider: "scripted"}); err != nil {
				return infoMsg{text: err.Error(), err: true}
			}
		}
		_, err := h.UpdateSession(id, func(s *harness.Session) error {
			if s.Settings == nil {
				s.Settings = map[string]string{}
			}
			s.Settings["model"] = name
			return nil
		})
		if err != nil {
			return infoMsg{text: err.Error(), err: true}
		}
		return modelSetMsg{name: name}
	}
}

// splitCmd loads the conversations of the sessions shown side by side.
func (m *Model) splitCmd(ids []string) tea.Cmd {
	h := m.h
	return func() tea.Msg {
		out := splitLoadedMsg{}
		for _, id := range ids {
			s, err := h.Session(id)
			if err != nil {
				continue
			}
			st, err := h.BranchState(s.Branch)
			if err != nil {
				continue
			}
			out.ids, out.names, out.items = append(out.ids, s.ID), append(out.names, s.Name), append(out.items, convItems(st))
		}
		return out
	}
}

// fadeCmd clears status message id after a while.
func fadeCmd(id int) tea.Cmd {
	return tea.Tick(6*time.Second, func(time.Time) tea.Msg { return fadeMsg{id: id} })
}

// prettyJSON indents an event for the detail overlay.
func prettyJSON(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return []byte(err.Error())
	}
	return b
}

// driftOf returns a drift lookup over the governance tracker (nil without one).
func driftOf(tr *governance.Tracker) func(id string) (float64, int) {
	if tr == nil {
		return nil
	}
	return func(id string) (float64, int) {
		st, err := tr.State(id)
		if err != nil {
			return 0, 0
		}
		return st.Drift().Total, len(st.Conflicts)
	}
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
	h, abandoned := m.h, next != m.session.Branch
	return func() tea.Msg {
		head, _, err := h.Store().Head(next)
		if err != nil {
			return branchViewMsg{err: err}
		}
		return branchViewMsg{branch: next, source: newTimelineSource(h, next, head, abandoned)}
	}
}

// modelSetMsg reports that the session's model changed.
type modelSetMsg struct{ name string }

// watchTasksCmd wakes the shown session when one of its background tasks or subagents finishes
// while it is idle (the executor runs a follow-up turn whose events stream in as usual). It stops
// the watcher of the session shown before.
func (m *Model) watchTasksCmd(id string) tea.Cmd {
	if m.stopWatch != nil {
		m.stopWatch()
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.stopWatch = cancel
	x := m.x
	return func() tea.Msg {
		_ = x.WatchTasks(ctx, id, nil)
		return nil
	}
}
