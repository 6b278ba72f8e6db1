package conformance

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/exectest"
)

// Budget: a token budget binds inside the turn. Each scripted answer reports 910 tokens against
// a budget of 1,000, so the second call is made after budget.warning (91%) and the third is
// refused; the turn ends with budget.exceeded and stop reason budget (an agent is told why, in
// its executor.result), and the next prompt is refused.
func Budget(t *testing.T, s *Suite) {
	f := s.Fixture(t, "", harness.Options{})
	if _, err := f.H.UpdateSession(f.Sess.ID, func(ss *harness.Session) error {
		ss.Settings = map[string]string{harness.SettingBudgetTokens: "1000"}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	x := f.Open(t, Options{})
	res, err := x.Prompt(context.Background(), f.Sess.ID, promptBudget)
	if err != nil {
		t.Fatal(err)
	}
	evs := f.events(t, f.Sess.ID)
	order := exectest.Types(evs)
	if res.StopReason != "budget" || !strings.Contains(res.Failure, "exo budget "+f.Sess.Name+" --tokens") || res.Steps != 2 {
		t.Fatalf("result %+v\n%s", res, order)
	}
	// The first step's command ran. The second's runs inside an agent, which exo sees only at
	// the next model call; exo's own executor checks before it runs the tool and stops there.
	steps := []string{"b1.txt"}
	if s.A.External {
		steps = append(steps, "b2.txt")
	}
	for _, name := range steps {
		if _, err := os.Stat(filepath.Join(f.WS, name)); err != nil {
			t.Fatalf("the step before the budget ran out did not run: %v", err)
		}
	}
	seen := 0
	for _, q := range s.requestsWith(promptBudget) {
		// an agent's side requests (a title) quote the prompt but carry none of the steps
		if !strings.Contains(string(q.Body), "Write the title") {
			seen++
		}
	}
	if seen != 2 {
		t.Fatalf("the model server got %d calls of the turn, want 2 (the third refused by exo)", seen)
	}
	first := strings.Index(order, harness.TypeModelCompleted)
	warn := strings.Index(order, harness.TypeBudgetWarning)
	second := strings.LastIndex(order, harness.TypeStepStarted)
	if first < 0 || warn < first || second < warn || strings.Count(order, harness.TypeStepStarted) != 2 ||
		!strings.Contains(order, harness.TypeBudgetExceeded) {
		t.Fatalf("events: %s", order)
	}
	w := exectest.Payloads[harness.BudgetWarning](t, evs, harness.TypeBudgetWarning)
	ex := exectest.Payloads[harness.BudgetExceeded](t, evs, harness.TypeBudgetExceeded)
	// An agent's side request (a title: 2 tokens) may count too.
	if len(w) != 1 || w[0].Spent < 910 || w[0].Spent > 912 || len(ex) != 1 || ex[0].Spent < 1820 || ex[0].Spent > 1822 || ex[0].Limit != 1000 {
		t.Fatalf("budget.warning %+v, budget.exceeded %+v", w, ex)
	}
	if s.A.External {
		r := exectest.Payloads[harness.ExecutorResult](t, evs, harness.TypeExecutorResult)
		if len(r) != 1 || !r[0].IsError || !strings.Contains(r[0].Result, "budget") ||
			!strings.HasSuffix(order, harness.TypeExecutorResult+" "+harness.TypeTurnCancelled) {
			t.Fatalf("executor.result %+v\n%s", r, order)
		}
	}
	if st, _ := f.H.State(f.Sess.ID); st.Status != harness.StatusIdle {
		t.Fatalf("status %s", st.Status)
	}
	if _, err := x.Prompt(context.Background(), f.Sess.ID, promptHello); !errors.Is(err, executor.ErrBudgetExceeded) {
		t.Fatalf("the next prompt: %v", err)
	}
}
