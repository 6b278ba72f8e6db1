package claude

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/executor"
)

// A token budget binds inside Claude's turn: each scripted answer reports 910 tokens against a
// budget of 1,000, so the second call is made after budget.warning (91%) and the third is
// refused with an error Claude shows; the turn ends as exo's own executor ends it
// (budget.exceeded, turn.cancelled, stop reason budget) and the next prompt is refused.
func TestBudgetBindsInsideClaudesTurn(t *testing.T) {
	f := newFixture(t)
	if _, err := f.h.UpdateSession(f.s.ID, func(s *harness.Session) error {
		s.Settings = map[string]string{harness.SettingBudgetTokens: "1000"}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	x := f.executor(t, Options{})
	res, err := x.Prompt(context.Background(), f.s.ID, "spend the budget", "test")
	if err != nil {
		t.Fatal(err)
	}
	evs := f.events(t, f.s.ID)
	if res.StopReason != "budget" || !strings.Contains(res.Failure, "exo budget "+f.s.Name+" --tokens") || res.Steps != 2 {
		t.Fatalf("result %+v\n%s", res, types(evs))
	}
	for _, name := range []string{"b1.txt", "b2.txt"} {
		if _, err := os.Stat(filepath.Join(f.ws, name)); err != nil {
			t.Fatalf("the step before the budget ran out did not run: %v", err)
		}
	}
	var seen int
	for _, r := range f.srv.Requests() {
		if strings.Contains(string(r.Body), "spend the budget") {
			seen++
		}
	}
	if seen != 2 {
		t.Fatalf("the model server got %d calls of the turn, want 2 (the third refused by exo)", seen)
	}
	// The warning comes between the first answer and the second call.
	order := types(evs)
	first := strings.Index(order, harness.TypeModelCompleted)
	warn := strings.Index(order, harness.TypeBudgetWarning)
	second := strings.LastIndex(order, harness.TypeStepStarted)
	if first < 0 || warn < first || second < warn || strings.Count(order, harness.TypeStepStarted) != 2 ||
		!strings.Contains(order, harness.TypeBudgetExceeded+" ") || !strings.HasSuffix(order, harness.TypeExecutorResult+" "+harness.TypeTurnCancelled) {
		t.Fatalf("events: %s", order)
	}
	w := payloads[harness.BudgetWarning](t, evs, harness.TypeBudgetWarning)
	ex := payloads[harness.BudgetExceeded](t, evs, harness.TypeBudgetExceeded)
	if len(w) != 1 || w[0].Spent != 910 || len(ex) != 1 || ex[0].Spent != 1820 || ex[0].Limit != 1000 {
		t.Fatalf("budget.warning %+v, budget.exceeded %+v", w, ex)
	}
	// Claude was told why: the refusal's message is in its result.
	r := payloads[harness.ExecutorResult](t, evs, harness.TypeExecutorResult)
	if len(r) != 1 || !r[0].IsError || !strings.Contains(r[0].Result, "budget") {
		t.Fatalf("executor.result %+v", r)
	}
	st, _ := f.h.State(f.s.ID)
	if st.Status != harness.StatusIdle {
		t.Fatalf("status %s", st.Status)
	}
	if _, err := x.Prompt(context.Background(), f.s.ID, "make a file", "test"); !errors.Is(err, executor.ErrBudgetExceeded) {
		t.Fatalf("the next prompt: %v", err)
	}
}
