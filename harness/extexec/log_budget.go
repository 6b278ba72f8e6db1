package extexec

import (
	"fmt"

	"exo/harness"
	"exo/harness/executor"
)

// Budgets inside an agent's turn: exo's own executor checks the session's token and cost
// budgets before each model call and after each answer; an agent makes its calls itself, so the
// endpoint checks before each one (the conversation's and side calls alike). Past 80% of a
// budget it records budget.warning once per limit; once a budget is spent it records
// budget.exceeded and refuses the call and every later one of the turn with an error the agent
// shows, and the turn ends as exo's own does (turn.cancelled with the reason, stop reason
// "budget").

// SetBudget makes the Log check the session's budgets with check before each model call.
func (l *Log) SetBudget(check func() (executor.BudgetCheck, error)) {
	l.mu.Lock()
	l.budget = check
	l.mu.Unlock()
}

// Refused returns why the turn's model calls were refused (a spent budget), or nil.
func (l *Log) Refused() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.refused
}

// checkBudget runs before a model call: it returns the error to refuse the call with, and
// queues budget.warning and budget.exceeded as they become due.
func (l *Log) checkBudget() error {
	l.mu.Lock()
	check, refused := l.budget, l.refused
	l.mu.Unlock()
	if check == nil {
		return nil
	}
	if refused != nil {
		return refused
	}
	c, err := check()
	if err != nil {
		return fmt.Errorf("exo could not check the session's budgets: %w", err)
	}
	var recs []harness.Record
	l.mu.Lock()
	for _, w := range c.Warnings {
		if l.warned[w.Budget] == w.Limit {
			continue
		}
		if l.warned == nil {
			l.warned = map[string]float64{}
		}
		l.warned[w.Budget] = w.Limit
		recs = append(recs, harness.MustRecord(harness.TypeBudgetWarning, l.actor, w))
	}
	if c.Exceeded != nil && l.refused == nil {
		l.refused = c.Err
		recs = append(recs, harness.MustRecord(harness.TypeBudgetExceeded, harness.ActorHarness, *c.Exceeded))
	}
	refused = l.refused
	l.mu.Unlock()
	if len(recs) > 0 {
		l.enqueue(nil, recs...)
	}
	return refused
}
