package app

import (
	"fmt"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"exo/harness/api"
	"exo/views"
)

// A pending approval belongs to the session, not to the dialog that shows it: the app shows the
// shown session's oldest unanswered call whenever no other dialog is up (after attaching, after
// the quit dialog closes, after another call is answered), so no key and no second window can
// lose a question the harness still waits on.

// approvalNotifyDelay is how long a call waits for its answer before the desktop is told: one
// that a policy, `--yes` or another window answers within it never rings.
const approvalNotifyDelay = time.Second

// approvalNotifyMsg fires approvalNotifyDelay after an approval was asked.
type approvalNotifyMsg struct{ session, callID, text string }

// approvalFailedMsg reports that an answer did not reach the harness: the question shows again.
type approvalFailedMsg struct{ callID, text string }

// showPendingApproval opens the approval dialog for the shown session's oldest call still
// waiting for an answer this app has not sent, when no other dialog is up.
func (m *Model) showPendingApproval() tea.Cmd {
	if m.overlay != nil || m.state == nil || m.quitting {
		return nil
	}
	for _, r := range m.state.Asked {
		if m.answered[r.CallID] {
			continue
		}
		ap := views.NewApproval(m.common, views.ApprovalRequest{ID: r.CallID, Tool: r.Tool, Args: approvalArgs(r.Tool, r.Args), Reason: "this tool's policy is ask"})
		ap.Hold() // it may open while the user types: "/compact"'s o approved a command
		m.overlay, m.approvalID = ap, r.CallID
		m.resize()
		id := r.CallID
		return tea.Tick(approvalGrace, func(time.Time) tea.Msg { return approvalArmMsg{id: id} })
	}
	return nil
}

// approvalAsked schedules the desktop notice of a new approval (see approvalNotifyDelay).
func (m *Model) approvalAsked(p *api.ApprovalRequested) tea.Cmd {
	msg := approvalNotifyMsg{session: m.current(), callID: p.CallID,
		text: fmt.Sprintf("%s waits for your approval: %s %s", m.sessionName(m.current()), views.ToolLabel(p.Tool), p.Summary)}
	return tea.Tick(approvalNotifyDelay, func(time.Time) tea.Msg { return msg })
}

// onApprovalNotify tells the desktop about an approval that still waits.
func (m *Model) onApprovalNotify(msg approvalNotifyMsg) tea.Cmd {
	if msg.session != m.current() || m.state == nil || !slices.Contains(m.state.Approvals, msg.callID) || m.answered[msg.callID] {
		return nil
	}
	return m.notify(msg.text)
}

// answerApproval closes the dialog and sends the user's answer.
func (m *Model) answerApproval(d views.ApprovalDecision) tea.Cmd {
	m.overlay, m.approvalID = nil, ""
	if m.answered == nil {
		m.answered = map[string]bool{}
	}
	m.answered[d.ID] = true
	return m.resolveApprovalCmd(d.ID, decisionName(d.Decision))
}

// approvalResolved forgets a call once the log records its answer, and closes its dialog if
// another window or the command line answered it.
func (m *Model) approvalResolved(p *api.ApprovalResolved) tea.Cmd {
	delete(m.answered, p.CallID)
	if m.approvalID == p.CallID && m.overlay != nil {
		m.overlay, m.approvalID = nil, ""
		m.resize()
		return m.say("approval answered: "+p.Decision, false)
	}
	return nil
}
