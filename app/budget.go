package app

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"exo/harness/api"
)

// budgetCmd is /budget: without arguments it says the session's budgets; "/budget tokens 200k"
// or "/budget cost 5" (none removes one) changes a budget, which the log records.
func (m *Model) budgetCmd(args string) tea.Cmd {
	f := strings.Fields(args)
	if len(f) == 0 {
		return m.say(m.budgetText(), false)
	}
	kind, value := "", ""
	switch {
	case len(f) == 2 && api.BudgetSetting(f[0]) != "":
		kind, value = f[0], f[1]
	case len(f) == 1:
		return m.say("/budget tokens N or /budget cost N (none removes it)", true)
	default:
		return m.say("/budget [tokens|cost] N: tokens as 200000, 200k or 1.5M, a cost in dollars, none to remove", true)
	}
	if _, err := api.ParseBudget(kind, value); err != nil {
		return m.say("/budget: "+err.Error(), true)
	}
	id, c := m.current(), m.c
	return func() tea.Msg {
		if _, err := c.SetSetting(bg, id, api.BudgetSetting(kind), value); err != nil {
			return infoMsg{text: "/budget: " + err.Error(), err: true}
		}
		return nil // the budget.changed event says what changed
	}
}

// budgetText says the shown session's budgets against what it spent.
func (m *Model) budgetText() string {
	if m.session == nil || m.state == nil {
		return "no session"
	}
	var parts []string
	tokens, _ := api.ParseBudget("tokens", m.session.Settings[api.SettingBudgetTokens])
	if tokens > 0 {
		parts = append(parts, fmt.Sprintf("tokens %d of %.0f", m.state.Usage.Input+m.state.Usage.Output, tokens))
	}
	cost, _ := api.ParseBudget("cost", m.session.Settings[api.SettingBudgetCost])
	if cost > 0 {
		parts = append(parts, fmt.Sprintf("cost $%.4f of $%.2f", m.state.Cost, cost))
	}
	if len(parts) == 0 {
		return "no budget: /budget tokens N or /budget cost N sets one"
	}
	return "budgets: " + strings.Join(parts, ", ") + " (/budget tokens N or cost N changes them)"
}
