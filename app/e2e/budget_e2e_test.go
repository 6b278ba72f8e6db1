package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestASpentBudgetCanBeRaised: a session whose token budget is spent refuses prompts, and its
// error says how to go on; exo budget raises it (recorded in the log as budget.changed) and the
// session takes prompts again. It used to lock the session for good: no command raised it.
func TestASpentBudgetCanBeRaised(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	mustRunIn(t, home, ws, "model", "register", "demo", "--provider", "scripted")
	mustRunIn(t, home, ws, "new", "--name", "thrifty", "--budget-tokens", "100")
	// The first turn spends past 100 tokens: it ends at the budget.
	out, errs, _ := exoEnv(t, home, ws, nil, "run", "--session", "thrifty", "--yes", "say hello")
	if !strings.Contains(out+errs, "budget") {
		t.Fatalf("the first turn did not stop at the budget:\n%s%s", out, errs)
	}
	_, errs, code := exoEnv(t, home, ws, nil, "run", "--session", "thrifty", "--yes", "again")
	if code == 0 || !strings.Contains(errs, "exo budget thrifty --tokens") {
		t.Fatalf("a spent budget: exit %d, and the error does not say how to raise it:\n%s", code, errs)
	}
	show := mustRunIn(t, home, ws, "budget", "thrifty")
	if !strings.Contains(show, "spent: raise it to go on") {
		t.Fatalf("exo budget does not show the spent budget:\n%s", show)
	}
	if _, errs, code := exoEnv(t, home, ws, nil, "budget", "thrifty", "--tokens", "lots"); code != 2 || !strings.Contains(errs, "a token budget is a number of tokens") {
		t.Fatalf("a budget that is no number: exit %d: %s", code, errs)
	}
	mustRunIn(t, home, ws, "budget", "thrifty", "--tokens", "1M")
	var rows []struct {
		Budget string  `json:"budget"`
		Limit  float64 `json:"limit"`
	}
	if err := json.Unmarshal([]byte(mustRunIn(t, home, ws, "budget", "thrifty", "--json")), &rows); err != nil || len(rows) != 2 || rows[0].Limit != 1e6 {
		t.Fatalf("exo budget --json after raising it: %v %+v", err, rows)
	}
	if out, errs, code := exoEnv(t, home, ws, nil, "run", "--session", "thrifty", "--yes", "again"); code != 0 {
		t.Fatalf("the raised session still refuses prompts: exit %d:\n%s%s", code, out, errs)
	}
	log := mustRunIn(t, home, ws, "log", "thrifty")
	if !strings.Contains(log, "budget.changed") || !strings.Contains(log, "tokens budget raised to 1000000 tokens (was 100 tokens)") {
		t.Fatalf("the raise is not in the log:\n%s", log)
	}
	mustRunIn(t, home, ws, "budget", "thrifty", "--tokens", "none")
	if log := mustRunIn(t, home, ws, "log", "thrifty"); !strings.Contains(log, "tokens budget removed") {
		t.Fatalf("removing the budget is not in the log:\n%s", log)
	}
}
