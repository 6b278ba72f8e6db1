package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"exo/themes"
)

// samplePlan is a plan halfway through.
func samplePlan() []PlanStep {
	return []PlanStep{{"Read the store's append path", PlanDone}, {"Measure BenchmarkAppend before the change", PlanDone},
		{"Batch the appends of one turn into one transaction", PlanActive}, {"Run the store's tests", PlanPending},
		{"Measure again and write the figures in README", PlanPending}}
}

func init() {
	goldenPanes["plan"] = func(c *Common, _ int) interface{ View() string } {
		p := NewPlanView(c)
		p.SetPlan(samplePlan(), "")
		return sizer{p}
	}
	goldenPanes["plan-long"] = func(c *Common, _ int) interface{ View() string } {
		p := NewPlanView(c)
		var steps []PlanStep
		for i := 1; i <= 12; i++ {
			st := PlanPending
			switch {
			case i < 7:
				st = PlanDone
			case i == 7:
				st = PlanActive
			}
			steps = append(steps, PlanStep{Text: fmt.Sprintf("step %d of the migration", i), Status: st})
		}
		p.SetPlan(steps, "claude-code")
		return sizer{p}
	}
}

// TestPlanViewKeepsTheCurrentStepInSight: the view asks for a row per step (frame included)
// up to what it is given, and when the steps do not fit it shows the one in progress, says how
// many are left out, and counts what is done; a plan with every step done is not open.
func TestPlanViewKeepsTheCurrentStepInSight(t *testing.T) {
	p := NewPlanView(NewCommon(themes.Dark()))
	if p.Height(10) != 0 || p.Open() {
		t.Fatal("an empty plan wants rows")
	}
	var steps []PlanStep
	for i := 1; i <= 20; i++ {
		st := PlanPending
		if i < 15 {
			st = PlanDone
		} else if i == 15 {
			st = PlanActive
		}
		steps = append(steps, PlanStep{Text: fmt.Sprintf("step %d", i), Status: st})
	}
	p.SetPlan(steps, "")
	if p.Height(40) != 22 || p.Height(6) != 6 || !p.Open() {
		t.Fatalf("height %d %d", p.Height(40), p.Height(6))
	}
	p.SetSize(40, 6)
	v := ansi.Strip(p.View())
	for _, want := range []string{"14/20 done", "▸ step 15", "✓ step 14", "… 13 done above · 4 more below"} {
		if !strings.Contains(v, want) {
			t.Fatalf("%q missing:\n%s", want, v)
		}
	}
	if strings.Contains(v, "step 1\n") || strings.Contains(v, "step 20") {
		t.Fatalf("the window is not around the current step:\n%s", v)
	}
	for i := range steps {
		steps[i].Status = PlanDone
	}
	p.SetPlan(steps, "")
	if p.Open() {
		t.Fatal("a finished plan is open")
	}
}
