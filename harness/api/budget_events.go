package api

import "fmt"

// Budget event types: a session approaching (budget.warning) or reaching (budget.exceeded) one
// of its token or cost budgets (session settings budget_tokens and budget_cost).
const (
	TypeBudgetWarning  = "budget.warning"
	TypeBudgetExceeded = "budget.exceeded"
)

// Session settings that hold a session's budgets.
const (
	SettingBudgetTokens = "budget_tokens"
	SettingBudgetCost   = "budget_cost"
)

// BudgetWarning records that a session's spend passed a share (0.8) of one of its budgets.
type BudgetWarning struct {
	Budget string  `json:"budget"` // tokens, cost
	Spent  float64 `json:"spent"`
	Limit  float64 `json:"limit"`
}

// BudgetExceeded records that a session reached one of its budgets: the turn ended and further
// prompts are refused until the budget is raised.
type BudgetExceeded struct {
	Budget string  `json:"budget"` // tokens, cost
	Spent  float64 `json:"spent"`
	Limit  float64 `json:"limit"`
}

func init() {
	RegisterType(TypeBudgetWarning, typed(FamilyPolicy, func(p *BudgetWarning) string {
		return fmt.Sprintf("%s budget at %.0f%%: %s of %s", p.Budget, 100*p.Spent/max(p.Limit, 1e-12), budgetAmount(p.Budget, p.Spent), budgetAmount(p.Budget, p.Limit))
	}))
	RegisterType(TypeBudgetExceeded, typed(FamilyError, func(p *BudgetExceeded) string {
		return fmt.Sprintf("%s budget exceeded: %s of %s; raise it to continue", p.Budget, budgetAmount(p.Budget, p.Spent), budgetAmount(p.Budget, p.Limit))
	}))
}

// budgetAmount renders an amount of a budget: tokens as an integer, cost in dollars.
func budgetAmount(budget string, v float64) string {
	if budget == "cost" {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("%.0f tokens", v)
}
