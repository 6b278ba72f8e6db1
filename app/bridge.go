package app

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"exo/harness/api"
)

// batchWindow is how long the bridge gathers notices into one message, so PTY output and token
// deltas arrive at the frame rate rather than one message per chunk: each message is an update
// and a View, and the renderer shows at most one view per frame, so gathering for less than a
// frame draws views nobody sees.
const batchWindow = time.Second / frameRate

// reconnectDelay is how long the app waits before it watches again after losing the daemon.
const reconnectDelay = 500 * time.Millisecond

// watchOpenedMsg carries a new watch of the harness (or why it could not open).
type watchOpenedMsg struct {
	w   *api.Watcher
	err error
}

// reconnectMsg asks the app to open its watch again.
type reconnectMsg struct{}

// openWatchCmd opens the watch of every session's notices, attached to a session (its clients
// count shows in every app's siblings pane).
func (m *Model) openWatchCmd(attach string) tea.Cmd {
	c := m.c
	return func() tea.Msg {
		w, err := c.Watch(context.Background(), api.WatchRequest{Attach: attach, Client: "app"})
		return watchOpenedMsg{w: w, err: err}
	}
}

// onWatchOpened starts listening, or retries later. After the daemon went away, what the app
// knew of running turns is dropped: the activity, the session and the siblings are read again
// from the daemon it reached (a new one when the old one died: the client starts it).
func (m *Model) onWatchOpened(msg watchOpenedMsg) tea.Cmd {
	if msg.err != nil {
		m.offline = true
		text := "the exo daemon is not answering (" + msg.err.Error() + "); retrying…"
		if m.held != "" {
			text += " Your prompt waits in the input and goes out when exo reconnects."
		}
		return tea.Batch(m.say(text, true),
			tea.Tick(reconnectDelay*4, func(time.Time) tea.Msg { return reconnectMsg{} }))
	}
	reconnected := m.watch != nil || m.offline
	m.watch, m.offline = msg.w, false
	cmds := []tea.Cmd{waitNotices(msg.w.C), m.activityCmd()}
	if reconnected {
		m.running = map[string]string{}
		m.streaming = false
		m.info.Busy = m.busy()
		cmds = append(cmds, m.refreshCmd(), m.siblingsCmd(), m.say("reconnected to the exo daemon", false))
	}
	if cur := m.current(); cur != "" {
		cmds = append(cmds, m.attachWatchCmd(cur))
	}
	return tea.Batch(cmds...)
}

// onWatchClosed reconnects after the daemon went away (the client starts a new one).
func (m *Model) onWatchClosed() tea.Cmd {
	if m.watch == nil || m.quitting {
		return nil
	}
	why := "the watch ended"
	if err := m.watch.Err(); err != nil {
		why = err.Error()
	}
	m.offline, m.lostTurn = true, m.busy()
	return tea.Batch(m.say("lost the exo daemon ("+why+"); reconnecting…", true),
		tea.Tick(reconnectDelay, func(time.Time) tea.Msg { return reconnectMsg{} }))
}

// onActivity applies what runs in the harness; after a reconnection it says whether the daemon
// was replaced (and the turn it ran interrupted), then sends the prompt held meanwhile.
func (m *Model) onActivity(msg activityMsg) tea.Cmd {
	if msg.err != nil {
		return nil
	}
	m.running = map[string]string{}
	for id, t := range msg.act.Running {
		m.running[id] = t
	}
	m.clients = msg.act.Clients
	var cmds []tea.Cmd
	if msg.act.Store != nil && m.setStore(msg.act.Store) {
		cmds = append(cmds, m.storeBack())
	}
	m.info.Busy = m.busy()
	if d := msg.act.Daemon; d != nil {
		if m.daemonPid != 0 && d.Pid != m.daemonPid {
			cmds = append(cmds, m.say(replacedText(m.daemonPid, d.Pid, m.lostTurn), m.lostTurn))
			m.lostTurn = false
		}
		m.daemonPid = d.Pid
	}
	if text := m.held; text != "" {
		m.held = ""
		if m.input.Value() == text { // the user did not change it meanwhile
			m.input.SetValue("")
			cmds = append(cmds, m.submit(text))
		}
	}
	return tea.Batch(cmds...)
}

// replacedText tells the user the daemon was replaced.
func replacedText(old, now int, lostTurn bool) string {
	text := fmt.Sprintf("the exo daemon (pid %d) had stopped; exo started a new one (pid %d)", old, now)
	if lostTurn {
		text += ": the turn that was running is recorded as interrupted"
	}
	return text
}

// attachWatchCmd makes the app's watch count as a client of the session it shows.
func (m *Model) attachWatchCmd(id string) tea.Cmd {
	if m.watch == nil {
		return nil
	}
	c, wid := m.c, m.watch.ID
	return func() tea.Msg {
		_ = c.Attach(context.Background(), wid, id)
		return nil
	}
}

// closeWatch ends the watch (the app is leaving).
func (m *Model) closeWatch() {
	if m.watch != nil {
		m.watch.Close()
	}
}

// waitNotices is a command that waits for harness notices and delivers them in a batch; Update
// re-arms it after each batch. A batch goes at once when a turn ends in it: nothing streams after
// that, so waiting out the window would only show the answer's end later (up to a window
// late), and several apps on one session would each show it after a delay of their own.
func waitNotices(ch <-chan api.Notice) tea.Cmd {
	return func() tea.Msg {
		n, ok := <-ch
		if !ok {
			return noticesClosedMsg{}
		}
		batch := []api.Notice{n}
		if endsTurn(n) {
			return noticesMsg{batch}
		}
		deadline := time.After(batchWindow)
		for {
			select {
			case n, ok := <-ch:
				if !ok {
					return noticesMsg{batch}
				}
				batch = append(batch, n)
				if len(batch) >= 512 || endsTurn(n) {
					return noticesMsg{batch}
				}
			case <-deadline:
				return noticesMsg{batch}
			}
		}
	}
}

// endsTurn says whether a notice tells that a turn ended.
func endsTurn(n api.Notice) bool { return n.Turn != nil && !n.Turn.Running }

// activityMsg carries which sessions run turns and which are watched.
type activityMsg struct {
	act api.Activity
	err error
}

// activityCmd reads what runs in the harness now.
func (m *Model) activityCmd() tea.Cmd {
	c := m.c
	return func() tea.Msg {
		a, err := c.Activity(context.Background())
		return activityMsg{act: a, err: err}
	}
}
