package views

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Decision is the user's answer to an approval request.
type Decision int

// The possible answers to an approval request.
const (
	ApproveOnce   Decision = iota // ApproveOnce allows this call only.
	ApproveAlways                 // ApproveAlways allows this tool for the session.
	Deny                          // Deny refuses the call.
)

// ApprovalRequest is what the approval modal asks about.
type ApprovalRequest struct {
	ID     string // ID identifies the request (the approval.requested event).
	Tool   string // Tool is the tool name.
	Args   string // Args are the arguments, shown in full (wrapped).
	Reason string // Reason says why approval is needed.
}

// ApprovalDecision reports the user's answer.
type ApprovalDecision struct {
	ID       string   // ID is the request answered.
	Decision Decision // Decision is the answer.
}

// ApprovalKeyMap holds the approval modal's bindings.
type ApprovalKeyMap struct {
	Once    key.Binding // Once approves this call.
	Always  key.Binding // Always approves the tool for the session.
	Deny    key.Binding // Deny refuses.
	Left    key.Binding // Left selects the previous choice.
	Right   key.Binding // Right selects the next choice.
	Confirm key.Binding // Confirm answers with the selected choice.
}

// DefaultApprovalKeyMap returns the approval modal's default bindings.
func DefaultApprovalKeyMap() ApprovalKeyMap {
	return ApprovalKeyMap{
		Once:    key.NewBinding(key.WithKeys("y", "o"), key.WithHelp("y", "approve once")),
		Always:  key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "always for this tool")),
		Deny:    key.NewBinding(key.WithKeys("n", "d", "esc"), key.WithHelp("n/esc", "deny")),
		Left:    key.NewBinding(key.WithKeys("left", "h", "shift+tab"), key.WithHelp("←", "previous")),
		Right:   key.NewBinding(key.WithKeys("right", "l", "tab"), key.WithHelp("→", "next")),
		Confirm: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "choose")),
	}
}

// Approval is the modal shown for approval.requested.
type Approval struct {
	base
	Keys ApprovalKeyMap // Keys are the modal's bindings.
	req  ApprovalRequest
	sel  int
	held bool // held ignores keys: the modal has just opened (see Hold).
}

// Hold makes the modal ignore keys until Arm: it opened while the user may be typing, and the
// letters that follow must not answer it. Its buttons say so meanwhile.
func (a *Approval) Hold() { a.held = true }

// Arm lets keys answer the modal.
func (a *Approval) Arm() { a.held = false }

// Held reports whether the modal still ignores keys.
func (a *Approval) Held() bool { return a.held }

// NewApproval returns the approval modal for a request; SetSize gives the
// largest box it may take (usually the screen).
func NewApproval(c *Common, req ApprovalRequest) *Approval {
	return &Approval{base: base{common: c, focused: true}, Keys: DefaultApprovalKeyMap(), req: req}
}

// Request returns the request shown.
func (a *Approval) Request() ApprovalRequest { return a.req }

// Update answers on y/a/n, or moves between and picks the choices.
func (a *Approval) Update(msg tea.Msg) (Pane, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || a.held {
		return a, nil
	}
	switch {
	case key.Matches(k, a.Keys.Once):
		return a, a.decide(ApproveOnce)
	case key.Matches(k, a.Keys.Always):
		return a, a.decide(ApproveAlways)
	case key.Matches(k, a.Keys.Deny):
		return a, a.decide(Deny)
	case key.Matches(k, a.Keys.Left):
		a.sel = (a.sel + 2) % 3
	case key.Matches(k, a.Keys.Right):
		a.sel = (a.sel + 1) % 3
	case key.Matches(k, a.Keys.Confirm):
		return a, a.decide(Decision(a.sel))
	}
	return a, nil
}

// decide emits the answer.
func (a *Approval) decide(d Decision) tea.Cmd {
	return emit(ApprovalDecision{ID: a.req.ID, Decision: d})
}

// View renders the modal box, sized to fit within the given size.
func (a *Approval) View() string {
	st := a.styles()
	w := min(a.width, 72)
	tw := max(w-6, 10)
	body := []string{st.Conv.ToolName.Render("▣ " + plain(ToolLabel(a.req.Tool)))}
	args := wrapStyled(st.Text.Normal, a.req.Args, tw)
	if lim := max(a.height-9, 1); len(args) > lim {
		args = append(args[:lim], st.Text.Muted.Render("…"))
	}
	body = append(body, args...)
	if a.req.Reason != "" {
		body = append(body, "")
		body = append(body, wrapStyled(st.Text.Muted, a.req.Reason, tw)...)
	}
	if a.held {
		body = append(body, "", st.Text.Muted.Render(truncate("  read it first: keys answer in a moment", tw)))
	} else {
		body = append(body, "", buttons(st, []string{"y approve once", "a always", "n deny"}, a.sel))
	}
	return dialog(st, "Approve tool call?", body, w, a.height)
}

// ShortHelp lists the modal's bindings.
func (a *Approval) ShortHelp() []key.Binding {
	return []key.Binding{a.Keys.Once, a.Keys.Always, a.Keys.Deny}
}

// FullHelp lists the modal's bindings.
func (a *Approval) FullHelp() [][]key.Binding {
	return [][]key.Binding{{a.Keys.Once, a.Keys.Always, a.Keys.Deny}, {a.Keys.Left, a.Keys.Right, a.Keys.Confirm}}
}
