package views

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// RewindPlan is what a rewind will undo, shown before confirming.
type RewindPlan struct {
	Seq    uint64   // Seq is the event the session goes back to.
	Events int      // Events counts the events that leave the live history.
	Files  []string // Files are the workspace files that will change.
}

// RewindConfirmed reports that the user confirmed the rewind.
type RewindConfirmed struct {
	Seq uint64 // Seq is the event to rewind to.
}

// RewindCanceled reports that the user kept the session as it is.
type RewindCanceled struct{}

// ConfirmKeyMap holds the confirm modal's bindings.
type ConfirmKeyMap struct {
	Yes key.Binding // Yes confirms.
	No  key.Binding // No cancels.
}

// DefaultConfirmKeyMap returns the confirm modal's default bindings.
func DefaultConfirmKeyMap() ConfirmKeyMap {
	return ConfirmKeyMap{
		Yes: key.NewBinding(key.WithKeys("y", "enter"), key.WithHelp("y", "rewind")),
		No:  key.NewBinding(key.WithKeys("n", "esc", "q"), key.WithHelp("n/esc", "cancel")),
	}
}

// Confirm is the modal asking to confirm a rewind.
type Confirm struct {
	base
	Keys ConfirmKeyMap // Keys are the modal's bindings.
	plan RewindPlan
}

// NewConfirm returns the rewind confirmation for a plan.
func NewConfirm(c *Common, plan RewindPlan) *Confirm {
	return &Confirm{base: base{common: c, focused: true}, Keys: DefaultConfirmKeyMap(), plan: plan}
}

// Update confirms on y/enter and cancels on n/esc.
func (c *Confirm) Update(msg tea.Msg) (Pane, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return c, nil
	}
	switch {
	case key.Matches(k, c.Keys.Yes):
		return c, emit(RewindConfirmed{Seq: c.plan.Seq})
	case key.Matches(k, c.Keys.No):
		return c, emit(RewindCanceled{})
	}
	return c, nil
}

// View renders what will be undone and the choices.
func (c *Confirm) View() string {
	st := c.styles()
	w := min(c.width, 64)
	body := []string{st.Text.Normal.Render(fmt.Sprintf("Go back to event %d.", c.plan.Seq))}
	body = append(body, wrapStyled(st.Modal.Danger, Plural(c.plan.Events, "event")+" "+agree(c.plan.Events, "leaves", "leave")+" the live history (kept, reachable in the timeline).", max(w-6, 10))...)
	if len(c.plan.Files) == 0 {
		body = append(body, st.Text.Muted.Render("No files change."))
	} else {
		body = append(body, st.Text.Normal.Render(fmt.Sprintf("%s %s state at %d:", Plural(len(c.plan.Files), "file"), agree(len(c.plan.Files), "returns to its", "return to their"), c.plan.Seq)))
		lim := max(c.height-10, 1)
		for i, f := range c.plan.Files {
			if i == lim && len(c.plan.Files) > lim+1 {
				body = append(body, st.Text.Muted.Render(fmt.Sprintf("  … and %d more", len(c.plan.Files)-lim)))
				break
			}
			body = append(body, st.Diff.Header.Render("  "+Sanitize(f)))
		}
	}
	body = append(body, "", buttons(st, []string{"y rewind", "n cancel"}, 0))
	return dialog(st, "Rewind?", body, w, c.height)
}

// ShortHelp lists the modal's bindings.
func (c *Confirm) ShortHelp() []key.Binding { return []key.Binding{c.Keys.Yes, c.Keys.No} }

// FullHelp lists the modal's bindings.
func (c *Confirm) FullHelp() [][]key.Binding { return [][]key.Binding{c.ShortHelp()} }
