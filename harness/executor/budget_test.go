package executor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"exo/harness"
)

// setBudget sets a session's token budget.
func setBudget(t *testing.T, h *harness.Harness, id string, tokens float64) {
	t.Helper()
	if _, err := h.UpdateSession(id, func(s *harness.Session) error {
		if s.Settings == nil {
			s.Settings = map[string]string{}
		}
		s.Settings[harness.SettingBudgetTokens] = fmt.Sprint(tokens)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestBudgetWarnsThenStopsTheSession(t *testing.T) {
	h, s, x := longSession(t)
	setBudget(t, h, s.ID, 1e9)
	for i := 0; i < 4; i++ {
		if _, err := x.Prompt(context.Background(), s.ID, "first", "test"); err != nil {
			t.Fatal(err)
		}
	}
	v, _ := x.ViewOf(s.Branch, "small")
	spent := float64(v.comp.spent.Tokens)
	setBudget(t, h, s.ID, spent/0.72)
	var res Result
	var err error
	for i := 0; i < 5 && res.Failure == "" && err == nil; i++ {
		res, err = x.Prompt(context.Background(), s.ID, "again", "test")
	}
	if err != nil || !strings.Contains(res.Failure, "budget") || res.StopReason != "budget" {
		t.Fatalf("the turn did not stop on the budget: %+v %v", res, err)
	}
	evs, _ := h.Events(s.ID, 0, 0)
	var types []string
	for _, e := range evs {
		switch e.Type {
		case harness.TypeBudgetWarning, harness.TypeBudgetExceeded, harness.TypeTurnCancelled:
			types = append(types, e.Type)
		}
	}
	if strings.Join(types, " ") != "budget.warning budget.exceeded turn.cancelled" {
		t.Fatalf("budget events %v", types)
	}
	if st, _ := h.State(s.ID); st.Status != harness.StatusIdle || len(st.OpenCalls) != 0 {
		t.Fatalf("state after the stop %+v", st)
	}
	// Further prompts are refused, with nothing appended, until the budget is raised.
	head := evs[len(evs)-1].Seq
	if _, err := x.Prompt(context.Background(), s.ID, "third", "test"); !errors.Is(err, ErrBudgetExceeded) {
		t.Fatalf("prompt past the budget: %v", err)
	}
	if evs, _ := h.Events(s.ID, head+1, 0); len(evs) != 0 {
		t.Fatalf("a refused prompt appended %d events", len(evs))
	}
	setBudget(t, h, s.ID, 1e9)
	if res, err := x.Prompt(context.Background(), s.ID, "third", "test"); err != nil || res.Failure != "" {
		t.Fatalf("after raising the budget: %+v %v", res, err)
	}
}

// TestBudgetsCheckedAtOnce: an agent's model calls (its main call and side calls) check the
// session's budgets at the same time while its turn appends; each brings the one prompt view
// up to date, and the race detector sees them take turns. The budget read matches the spend
// folded by a view built from scratch.
func TestBudgetsCheckedAtOnce(t *testing.T) {
	h, s, x := longSession(t)
	setBudget(t, h, s.ID, 1e9)
	if _, err := x.Prompt(context.Background(), s.ID, "first", "test"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 4)
	for range 4 {
		go func() {
			for range 50 {
				if _, err := x.Budgets(s.ID); err != nil {
					done <- err
					return
				}
				if err := x.CheckBudget(s.ID); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for i := range 20 {
		if _, err := h.Append(s.ID, benchTurn(i)...); err != nil {
			t.Fatal(err)
		}
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	v, err := x.ViewOf(s.Branch, "small")
	if err != nil {
		t.Fatal(err)
	}
	evs, _ := h.BranchEvents(s.Branch, 1, 0)
	fresh := newView(s.Branch, "small")
	for _, e := range evs {
		fresh.Apply(e)
	}
	if v.Head != fresh.Head || v.comp.spent != fresh.comp.spent {
		t.Fatalf("view after concurrent checks: head %d spent %+v; from scratch: head %d spent %+v", v.Head, v.comp.spent, fresh.Head, fresh.comp.spent)
	}
}
