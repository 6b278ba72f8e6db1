package app

import (
	tea "charm.land/bubbletea/v2"

	"exo/harness/api"
	"exo/views"
)

// Follow-ups while a turn runs: enter queues the prompt for when the turn ends, ctrl+s queues it
// to steer the turn at its next step. The queue lives in the harness (prompt.queued events,
// SessionState.Queued): every app attached to the session shows it, and the daemon sends it.

// unqueuedMsg reports a queued prompt taken back: its text goes back into the input.
type unqueuedMsg struct {
	session, text string
	err           error
}

// syncQueue shows the shown session's queued prompts and whether a turn runs in the input.
func (m *Model) syncQueue() {
	m.input.SetBusy(m.busy())
	var q []views.QueuedLine
	if m.state != nil {
		for _, p := range m.state.Queued {
			q = append(q, views.QueuedLine{Text: p.Text, Steer: p.Steer})
		}
	}
	m.input.SetQueued(q)
}

// takeBackQueued takes the newest queued prompt of the shown session back into the input.
func (m *Model) takeBackQueued() tea.Cmd {
	if m.state == nil || len(m.state.Queued) == 0 {
		return nil
	}
	p := m.state.Queued[len(m.state.Queued)-1]
	id, c := m.current(), m.c
	return func() tea.Msg {
		return unqueuedMsg{session: id, text: p.Text, err: c.Unqueue(bg, id, p.ID)}
	}
}

// onUnqueued puts a prompt taken back into the input, unless something was typed meanwhile.
func (m *Model) onUnqueued(msg unqueuedMsg) tea.Cmd {
	if msg.err != nil {
		return m.say("take back: "+msg.err.Error(), true)
	}
	if msg.session == m.current() && m.input.Value() == "" {
		m.input.SetValue(msg.text)
		return m.say("queued prompt taken back: edit it and send it again", false)
	}
	return m.say("queued prompt taken back", false)
}

// whenBusy is what a prompt does if a turn runs when it arrives.
func whenBusy(steer bool) string {
	if steer {
		return api.BusySteer
	}
	return api.BusyQueue
}
