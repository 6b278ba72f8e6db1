package views

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// PlanStatus is where a step of the agent's plan stands.
type PlanStatus int

// Plan step statuses.
const (
	PlanPending PlanStatus = iota
	PlanActive
	PlanDone
)

// PlanStep is one step of the agent's plan as the plan view shows it.
type PlanStep struct {
	Text   string
	Status PlanStatus
}

// PlanView shows the plan the agent keeps (its to-do list) as a checklist: done steps ticked
// and dimmed, the step in progress highlighted. It takes no keys; the app gives it the rows it
// asks for (Height) above the prompt while a plan is open.
type PlanView struct {
	base
	steps []PlanStep
	by    string
}

// NewPlanView returns an empty plan view.
func NewPlanView(c *Common) *PlanView { return &PlanView{base: base{common: c}} }

// SetPlan replaces the plan; by names who keeps it ("" for exo's own agent).
func (p *PlanView) SetPlan(steps []PlanStep, by string) {
	p.steps, p.by = append(p.steps[:0], steps...), by
}

// Steps returns the plan shown.
func (p *PlanView) Steps() []PlanStep { return p.steps }

// Open reports whether the plan has a step not done yet (the app shows the view then).
func (p *PlanView) Open() bool {
	for _, s := range p.steps {
		if s.Status != PlanDone {
			return true
		}
	}
	return false
}

// Height is how many rows the view wants, frame included, given at most maxRows: every step,
// or fewer with a line saying how many more there are; 0 without a plan.
func (p *PlanView) Height(maxRows int) int {
	if len(p.steps) == 0 || maxRows < 3 {
		return 0
	}
	return min(len(p.steps)+2, maxRows)
}

// Update takes no keys.
func (p *PlanView) Update(tea.Msg) (Pane, tea.Cmd) { return p, nil }

// ShortHelp lists no bindings: the view takes no keys.
func (p *PlanView) ShortHelp() []key.Binding { return nil }

// FullHelp lists no bindings.
func (p *PlanView) FullHelp() [][]key.Binding { return nil }

// View renders the checklist at exactly the view's size.
func (p *PlanView) View() string {
	w, h := p.inner()
	if p.width < 4 || p.height < 3 {
		w, h = p.width, p.height
	}
	done := 0
	for _, s := range p.steps {
		if s.Status == PlanDone {
			done++
		}
	}
	info := fmt.Sprintf("%d/%d done", done, len(p.steps))
	if p.by != "" {
		info = plain(p.by) + " · " + info
	}
	return frame(p.styles(), false, "Plan", info, p.lines(w, h), p.width, p.height)
}

// lines are the steps that fit in h rows: when they do not all fit, a window that keeps the
// step in progress in sight, with a line saying how many more there are.
func (p *PlanView) lines(w, h int) []string {
	if h <= 0 {
		return nil
	}
	first, n := 0, len(p.steps)
	if n > h {
		n = max(h-1, 1) // one row shows the step in progress alone
		cur := 0
		for i, s := range p.steps {
			if s.Status != PlanDone {
				cur = i
				break
			}
		}
		back := 0
		if n >= 3 {
			back = 1 // the step done last stays in sight above the current one
		}
		first = min(max(cur-back, 0), len(p.steps)-n)
	}
	out := make([]string, 0, h)
	for _, s := range p.steps[first : first+n] {
		out = append(out, p.step(s, w))
	}
	if rest := len(p.steps) - n; rest > 0 && len(out) < h {
		out = append(out, p.styles().Text.Muted.Render(truncate(fmt.Sprintf("… %d done above · %d more below", first, rest-first), w)))
	}
	return out
}

// step renders one step on one line.
func (p *PlanView) step(s PlanStep, w int) string {
	st := p.styles()
	text := oneLine(plain(s.Text))
	switch s.Status {
	case PlanDone:
		return st.Text.Muted.Render(truncate("✓ "+text, w))
	case PlanActive:
		return st.Conv.AssistantLabel.Render(truncate("▸ "+text, w))
	}
	return st.Text.Normal.Render(truncate("○ "+text, w))
}
