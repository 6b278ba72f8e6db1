package app

import (
	"exo/harness/api"
	"exo/views"
)

// showPlan gives the plan view the shown session's plan (SessionState.Plan, folded from the
// agent's to-do calls and plan updates); the layout makes room for it while it shows.
func (m *Model) showPlan() {
	if m.state == nil || m.state.Plan == nil {
		m.plan.SetPlan(nil, "")
		return
	}
	p := m.state.Plan
	steps := make([]views.PlanStep, 0, len(p.Steps))
	for _, s := range p.Steps {
		st := views.PlanPending
		switch api.NormalStepStatus(s.Status) {
		case api.StepCompleted:
			st = views.PlanDone
		case api.StepInProgress:
			st = views.PlanActive
		}
		steps = append(steps, views.PlanStep{Text: s.Text, Status: st})
	}
	by := p.Executor
	if by == "default" || by == "exo" {
		by = ""
	}
	m.plan.SetPlan(steps, by)
}

// planRows is how many rows the plan view gets out of maxRows: what it asks for while a step
// is left to do or the session's turn runs (a finished plan stays until the turn ends), else 0.
func (m *Model) planRows(maxRows int) int {
	if !m.plan.Open() && (m.session == nil || m.running[m.session.ID] == "") {
		return 0
	}
	return m.plan.Height(maxRows)
}
