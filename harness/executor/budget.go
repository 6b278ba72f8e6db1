package executor

import (
	"errors"
	"fmt"
	"strconv"

	"exo/harness"
	"exo/harness/provider"
)

// ErrBudgetExceeded means a session spent one of its budgets; prompts are refused until the
// budget is raised (session settings budget_tokens and budget_cost).
var ErrBudgetExceeded = errors.New("budget exceeded")

// budgetWarnShare is the share of a budget past which budget.warning is recorded once.
const budgetWarnShare = 0.8

// budget is one limit of a session.
type budget struct {
	kind  string // tokens, cost
	limit float64
	spent float64
}

// budgetsOf reads a session's budgets and what its history has spent against them (model calls
// of this history and the reports of its subagents).
func budgetsOf(s *harness.Session, sp spend) []budget {
	var out []budget
	if v, err := strconv.ParseFloat(s.Settings[harness.SettingBudgetTokens], 64); err == nil && v > 0 {
		out = append(out, budget{kind: "tokens", limit: v, spent: float64(sp.Tokens)})
	}
	if v, err := strconv.ParseFloat(s.Settings[harness.SettingBudgetCost], 64); err == nil && v > 0 {
		out = append(out, budget{kind: "cost", limit: v, spent: sp.Cost})
	}
	return out
}

// exceededErr describes a spent budget.
func exceededErr(s *harness.Session, b budget) error {
	return fmt.Errorf("%w: session %s spent %s of its %s budget of %s; raise it to continue: exo budget %s --%s N (or /budget %s N in the app)", ErrBudgetExceeded,
		s.Name, amount(b.kind, b.spent), b.kind, amount(b.kind, b.limit), s.Name, b.kind, b.kind)
}

func amount(kind string, v float64) string {
	if kind == "cost" {
		return fmt.Sprintf("$%.4f", v)
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + " tokens"
}

// CheckBudget fails with ErrBudgetExceeded when a session has spent one of its budgets. While a
// turn runs on the session it does not look (that turn checks before each model call).
func (x *Executor) CheckBudget(sessionID string) error {
	if !x.claim(sessionID) {
		return nil
	}
	defer x.release(sessionID)
	s, err := x.h.Session(sessionID)
	if err != nil {
		return err
	}
	if len(budgetsOf(s, spend{})) == 0 {
		return nil
	}
	m, err := x.h.Model(s.Settings["model"])
	if err != nil {
		return err
	}
	var bs []budget
	if err := x.viewDo(s.Branch, m.ModelID, func(v *View) { bs = budgetsOf(s, v.comp.spent) }); err != nil {
		return err
	}
	for _, b := range bs {
		if b.spent >= b.limit {
			return exceededErr(s, b)
		}
	}
	return nil
}

// budgets returns the turn's budgets against the spend folded so far (the session record is
// read again, so a budget raised meanwhile counts).
func (t *turn) budgets() ([]budget, *View, error) {
	if s, err := t.x.h.Session(t.s.ID); err == nil {
		t.s.Settings = s.Settings
	}
	v, err := t.x.ViewOf(t.s.Branch, t.model.ModelID)
	if err != nil {
		return nil, nil, err
	}
	return budgetsOf(t.s, v.comp.spent), v, nil
}

// budgetStop ends the turn before a model call when a budget is already spent.
func (t *turn) budgetStop() (bool, error) {
	bs, _, err := t.budgets()
	if err != nil {
		return true, err
	}
	for _, b := range bs {
		if b.spent >= b.limit {
			return true, t.exceeded(b)
		}
	}
	return false, nil
}

// budgetAfter checks the budgets after a model answer: past 80% it warns once; at 100% the
// answer's tool calls are not run and the turn ends with budget.exceeded.
func (t *turn) budgetAfter(resp provider.Response) (bool, error) {
	bs, v, err := t.budgets()
	if err != nil {
		return true, err
	}
	if len(bs) > 0 && len(resp.ToolCalls) > 0 {
		// The answer is held for its first call's start (completed): commit it now, so that
		// what it spent counts before any of its calls runs.
		if err := t.x.h.Release(t.s.ID); err != nil {
			return true, err
		}
		if bs, v, err = t.budgets(); err != nil {
			return true, err
		}
	}
	for _, b := range bs {
		if b.spent >= b.limit {
			for _, c := range resp.ToolCalls {
				if err := t.append(harness.TypeToolCompleted, harness.ToolCompleted{CallID: c.ID, Tool: c.Name, IsError: true,
					Output: "not run: the session's " + b.kind + " budget is spent"}); err != nil {
					return true, err
				}
			}
			return true, t.exceeded(b)
		}
	}
	for _, b := range bs {
		if b.spent >= budgetWarnShare*b.limit && v.comp.warned[b.kind] != b.limit {
			if err := t.append(harness.TypeBudgetWarning, harness.BudgetWarning{Budget: b.kind, Spent: b.spent, Limit: b.limit}); err != nil {
				return true, err
			}
		}
	}
	return false, nil
}

// exceeded records a spent budget and ends the turn (turn.cancelled leaves the session idle).
func (t *turn) exceeded(b budget) error {
	err := exceededErr(t.s, b)
	t.res.Failure, t.res.StopReason = err.Error(), "budget"
	_, aerr := t.x.h.AppendOn(t.s.ID, t.s.Branch,
		harness.MustRecord(harness.TypeBudgetExceeded, harness.ActorHarness, harness.BudgetExceeded{Budget: b.kind, Spent: b.spent, Limit: b.limit}),
		harness.MustRecord(harness.TypeTurnCancelled, t.x.actor(), harness.TurnCancelled{Reason: err.Error()}))
	return aerr
}

// BudgetCheck is a session's budgets against what its current branch has spent, for a turn exo
// does not run itself (an external agent's).
type BudgetCheck struct {
	// Exceeded is the first spent budget (nil when none is); Err describes it as exo's own
	// executor does (wrapping ErrBudgetExceeded).
	Exceeded *harness.BudgetExceeded
	Err      error
	// Warnings are the budgets past 80% that the branch holds no budget.warning for at their
	// limit.
	Warnings []harness.BudgetWarning
}

// HasBudgets reports whether a session has a token or cost budget.
func HasBudgets(s *harness.Session) bool { return len(budgetsOf(s, spend{})) > 0 }

// Budgets checks a session's budgets against what its current branch has spent (model calls,
// agents' side calls, compaction and subagents), reading the session record again so that a
// budget raised meanwhile counts. It does not wait for a turn running on the session.
func (x *Executor) Budgets(sessionID string) (BudgetCheck, error) {
	s, err := x.h.Session(sessionID)
	if err != nil || !HasBudgets(s) {
		return BudgetCheck{}, err
	}
	m, err := x.h.Model(s.Settings["model"])
	if err != nil {
		return BudgetCheck{}, err
	}
	var c BudgetCheck
	err = x.viewDo(s.Branch, m.ModelID, func(v *View) {
		for _, b := range budgetsOf(s, v.comp.spent) {
			switch {
			case b.spent >= b.limit && c.Exceeded == nil:
				c.Exceeded, c.Err = &harness.BudgetExceeded{Budget: b.kind, Spent: b.spent, Limit: b.limit}, exceededErr(s, b)
			case b.spent >= budgetWarnShare*b.limit && b.spent < b.limit && v.comp.warned[b.kind] != b.limit:
				c.Warnings = append(c.Warnings, harness.BudgetWarning{Budget: b.kind, Spent: b.spent, Limit: b.limit})
			}
		}
	})
	return c, err
}
