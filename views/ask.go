package views

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Ask is a yes/no question in a modal, for actions that cannot be taken back from the app
// (archiving, deleting a session): y or enter answers with the message given, n or esc
// closes it (CloseOverlay).
type Ask struct {
	base
	title, yes string
	lines      []string
	danger     bool
	onYes      tea.Msg
}

// NewAsk returns the question: lines explain what happens, yes labels the y button, onYes is
// the message y sends; danger styles the explanation as a warning.
func NewAsk(c *Common, title string, lines []string, yes string, danger bool, onYes tea.Msg) *Ask {
	return &Ask{base: base{common: c, focused: true}, title: title, yes: yes, lines: lines, danger: danger, onYes: onYes}
}

// Update answers on y/enter and closes on n/esc/q.
func (a *Ask) Update(msg tea.Msg) (Pane, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return a, nil
	}
	switch k.String() {
	case "y", "enter":
		return a, emit(a.onYes)
	case "n", "esc", "q":
		return a, emit(CloseOverlay{})
	}
	return a, nil
}

// View renders the explanation and the choices.
func (a *Ask) View() string {
	st := a.styles()
	w := min(a.width, 64)
	style := st.Text.Normal
	if a.danger {
		style = st.Modal.Danger
	}
	var body []string
	for _, l := range a.lines {
		body = append(body, wrapStyled(style, l, max(w-6, 10))...)
	}
	body = append(body, "", buttons(st, []string{"y " + a.yes, "n cancel"}, 0))
	return dialog(st, a.title, body, w, a.height)
}

// ShortHelp lists the modal's bindings.
func (a *Ask) ShortHelp() []key.Binding { return askKeys }

// FullHelp lists the modal's bindings.
func (a *Ask) FullHelp() [][]key.Binding { return [][]key.Binding{askKeys} }

// askKeys describe the question's keys for help.
var askKeys = []key.Binding{
	key.NewBinding(key.WithKeys("y", "enter"), key.WithHelp("y", "yes")),
	key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", "cancel")),
}
