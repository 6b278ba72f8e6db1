package api

import (
	"fmt"
	"strconv"
	"strings"
)

// Budget event types: a session approaching (budget.warning) or reaching (budget.exceeded) one
// of its token or cost budgets (session settings budget_tokens and budget_cost), and a budget
// set, raised, lowered or removed (budget.changed).
const (
	TypeBudgetWarning  = "budget.warning"
	TypeBudgetExceeded = "budget.exceeded"
	TypeBudgetChanged  = "budget.changed"
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

// BudgetChanged records a change of one of a session's budgets; a limit of 0 is no budget.
type BudgetChanged struct {
	Budget   string  `json:"budget"` // tokens, cost
	Limit    float64 `json:"limit"`
	Previous float64 `json:"previous"`
}

// BudgetSetting names the session setting of a budget kind (tokens, cost), "" for another word.
func BudgetSetting(kind string) string {
	switch kind {
	case "tokens":
		return SettingBudgetTokens
	case "cost":
		return SettingBudgetCost
	}
	return ""
}

// BudgetKind names the budget a session setting holds (tokens, cost), "" for another setting.
func BudgetKind(setting string) string {
	switch setting {
	case SettingBudgetTokens:
		return "tokens"
	case SettingBudgetCost:
		return "cost"
	}
	return ""
}

// ParseBudget reads a budget as a user writes it: tokens as 200000, 200k or 1.5M; a cost in
// dollars as 5, 5.50 or $5; none, off, 0 or "" for no budget (0).
func ParseBudget(kind, text string) (float64, error) {
	t := strings.ToLower(strings.TrimSpace(text))
	switch t {
	case "", "none", "off", "0":
		return 0, nil
	}
	mult := 1.0
	if kind == "cost" {
		t = strings.TrimPrefix(t, "$")
	} else if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k':
			mult, t = 1e3, t[:n-1]
		case 'm':
			mult, t = 1e6, t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v != v || v > 1e15 {
		if kind == "cost" {
			return 0, fmt.Errorf("a cost budget is an amount of dollars such as 5 or 2.50, or none (got %q)", text)
		}
		return 0, fmt.Errorf("a token budget is a number of tokens such as 200000, 200k or 1.5M, or none (got %q)", text)
	}
	return v * mult, nil
}

// FormatBudget writes a budget as the setting keeps it ("" for no budget).
func FormatBudget(v float64) string {
	if v <= 0 {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// budgetChangeText says what a budget.changed did.
func budgetChangeText(p *BudgetChanged) string {
	switch {
	case p.Limit <= 0:
		return fmt.Sprintf("%s budget removed (was %s)", p.Budget, budgetAmount(p.Budget, p.Previous))
	case p.Previous <= 0:
		return fmt.Sprintf("%s budget set to %s", p.Budget, budgetAmount(p.Budget, p.Limit))
	case p.Limit > p.Previous:
		return fmt.Sprintf("%s budget raised to %s (was %s)", p.Budget, budgetAmount(p.Budget, p.Limit), budgetAmount(p.Budget, p.Previous))
	}
	return fmt.Sprintf("%s budget lowered to %s (was %s)", p.Budget, budgetAmount(p.Budget, p.Limit), budgetAmount(p.Budget, p.Previous))
}

func init() {
	RegisterType(TypeBudgetChanged, typed(FamilyPolicy, budgetChangeText))
	stateAppliers[TypeBudgetChanged] = noticeApplier("")
	RegisterType(TypeBudgetWarning, typed(FamilyPolicy, func(p *BudgetWarning) string {
		return fmt.Sprintf("%s budget at %.0f%%: %s of %s", p.Budget, 100*p.Spent/max(p.Limit, 1e-12), budgetAmount(p.Budget, p.Spent), budgetAmount(p.Budget, p.Limit))
	}))
	RegisterType(TypeBudgetExceeded, typed(FamilyError, func(p *BudgetExceeded) string {
		return fmt.Sprintf("%s budget exceeded: %s of %s; raise it to continue (exo budget, or /budget in the app)", p.Budget, budgetAmount(p.Budget, p.Spent), budgetAmount(p.Budget, p.Limit))
	}))
}

// budgetAmount renders an amount of a budget: tokens as an integer, cost in dollars.
func budgetAmount(budget string, v float64) string {
	if budget == "cost" {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("%.0f tokens", v)
}
