package views

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// QuitChoice is the answer to the question asked when the app closes with turns running.
type QuitChoice int

// The answers: keep the turns running in the harness, stop them, or stay in the app.
const (
	QuitKeep QuitChoice = iota
	QuitStop
	QuitStay
)

// QuitAnswer reports the user's answer to the quit question.
type QuitAnswer struct {
	Choice QuitChoice // Choice is what to do with the running turns.
}

// QuitKeyMap holds the quit question's bindings.
type QuitKeyMap struct {
	Keep key.Binding // Keep leaves the turns running in the harness.
	Stop key.Binding // Stop cancels them, then leaves.
	Stay key.Binding // Stay goes back to the app.
}

// DefaultQuitKeyMap returns the quit question's default bindings.
func DefaultQuitKeyMap() QuitKeyMap {
	return QuitKeyMap{
		Keep: key.NewBinding(key.WithKeys("k", "enter"), key.WithHelp("k", "keep running")),
		Stop: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "stop them")),
		Stay: key.NewBinding(key.WithKeys("esc", "n"), key.WithHelp("esc", "stay")),
	}
}

// QuitConfirm asks what to do with running turns when the app closes.
type QuitConfirm struct {
	base
	Keys     QuitKeyMap // Keys are the modal's bindings.
	sessions []string
}

// NewQuitConfirm returns the question for the named sessions whose turns run.
func NewQuitConfirm(c *Common, sessions []string) *QuitConfirm {
	return &QuitConfirm{base: base{common: c, focused: true}, Keys: DefaultQuitKeyMap(), sessions: sessions}
}

// Update answers on k/enter, s or esc.
func (q *QuitConfirm) Update(msg tea.Msg) (Pane, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return q, nil
	}
	switch {
	case key.Matches(k, q.Keys.Keep):
		return q, emit(QuitAnswer{Choice: QuitKeep})
	case key.Matches(k, q.Keys.Stop):
		return q, emit(QuitAnswer{Choice: QuitStop})
	case key.Matches(k, q.Keys.Stay):
		return q, emit(QuitAnswer{Choice: QuitStay})
	}
	return q, nil
}

// View renders the question.
func (q *QuitConfirm) View() string {
	st := q.styles()
	w := min(q.width, 64)
	body := []string{st.Text.Normal.Render(Plural(len(q.sessions), "turn") + " still running:")}
	lim := max(q.height-9, 1)
	for i, s := range q.sessions {
		if i == lim && len(q.sessions) > lim+1 {
			body = append(body, st.Text.Muted.Render(fmt.Sprintf("  … and %d more", len(q.sessions)-lim)))
			break
		}
		body = append(body, st.Text.Strong.Render("  "+Sanitize(s)))
	}
	body = append(body, wrapStyled(st.Text.Muted, "Kept turns go on in the exo daemon: exo attach or exo tail shows them later.", max(w-6, 10))...)
	body = append(body, "", buttons(st, []string{"k keep running", "s stop them", "esc stay"}, 0))
	return dialog(st, "Leave exo?", body, w, q.height)
}

// ShortHelp lists the modal's bindings.
func (q *QuitConfirm) ShortHelp() []key.Binding {
	return []key.Binding{q.Keys.Keep, q.Keys.Stop, q.Keys.Stay}
}

// FullHelp lists the modal's bindings.
func (q *QuitConfirm) FullHelp() [][]key.Binding { return [][]key.Binding{q.ShortHelp()} }
