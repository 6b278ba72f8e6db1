package governance

import (
	"exo/store"
	"math"
	"reflect"
	"testing"

	"exo/harness"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestDriftFromTheLog(t *testing.T) {
	h := openHarness(t)
	s := newSession(t, h, "alpha", "/w", &Scope{Allow: []string{"src/**"}, Budget: 10})
	live := NewState(s.ID)
	evs, _ := h.Events(s.ID, 1, 0)
	for _, e := range evs {
		live.Apply(e)
	}
	if d := live.Drift(); d.Total != 0 || d.Changed != 0 {
		t.Fatalf("no changes: %+v", d)
	}
	steps := [][]any{
		{snapshot("src/a.go", "-src/c.go")}, // a deletion counts as a change
		{write("/w/src/b.go", false)},       // absolute path inside the workspace
		{write("src/never.go", true)},       // a refused write is no change
		{snapshot("docs/x.md", "src/a.go")}, // src/a.go again: still one file
	}
	for _, step := range steps {
		for _, r := range flatten(step) {
			for _, e := range mustAppend(t, h, s.ID, r) {
				live.Apply(e)
			}
		}
	}
	d := live.Drift()
	// 4 changed, 3 in scope, budget 10: 0.50×0.25 + 0.35×0.4 + 0 = 0.265.
	if d.Changed != 4 || d.InScope != 3 || !near(d.Total, 0.265) || d.Level != LevelLow {
		t.Fatalf("drift %+v", d)
	}
	if !near(d.Parts.Scope.Value, 0.125) || !near(d.Parts.Budget.Value, 0.14) || d.Parts.Boundary.Value != 0 {
		t.Fatalf("parts %+v %+v %+v", d.Parts.Scope, d.Parts.Budget, d.Parts.Boundary)
	}
	if !reflect.DeepEqual(d.Parts.Scope.Files, []string{"docs/x.md"}) || len(d.Parts.Budget.Files) != 4 {
		t.Fatalf("files behind parts: %v %v", d.Parts.Scope.Files, d.Parts.Budget.Files)
	}
	replayed, err := Load(h, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := replayed.Drift(); !reflect.DeepEqual(got, d) {
		t.Fatalf("recomputed %+v, live %+v", got, d)
	}
}

func TestDriftFormulaCases(t *testing.T) {
	cases := []struct {
		name    string
		scope   Scope
		changed []string
		total   float64
		level   Level
	}{
		{"nothing changed", Scope{Budget: 1}, nil, 0, LevelLow},
		{"no budget: budget term 0", Scope{Allow: []string{"src/**"}}, []string{"src/a", "b"}, 0.25, LevelLow},
		{"boundary and budget overrun", Scope{Allow: []string{"src/**"}, Budget: 2},
			[]string{"src/a.go", ".exo/x", "src/b.go"}, 0.5/3 + 0.35 + 0.15, LevelMid},
		{"everything wrong", Scope{Allow: []string{"src/**"}, Budget: 1},
			[]string{".git/HEAD", "docs/a"}, 1, LevelHigh},
		{"all in scope, half the budget", Scope{Budget: 4}, []string{"a", "b"}, 0.175, LevelLow},
	}
	for _, c := range cases {
		d := ComputeDrift(c.scope, c.changed)
		if !near(d.Total, round6(c.total)) || d.Level != c.level {
			t.Errorf("%s: total %v level %s, want %v %s", c.name, d.Total, d.Level, c.total, c.level)
		}
	}
	if LevelOf(0.3) != LevelMid || LevelOf(0.2999) != LevelLow || LevelOf(0.7) != LevelHigh {
		t.Error("level thresholds")
	}
}

func TestForkInheritsScopeAndChanges(t *testing.T) {
	h := openHarness(t)
	s := newSession(t, h, "alpha", "/w", &Scope{Allow: []string{"src/**"}, Budget: 4})
	mustAppend(t, h, s.ID, snapshot("src/a.go"))
	f, err := h.Fork(s.ID, 0, harness.ForkOptions{Name: "beta", Workspace: "/w2"})
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, h, f.ID, write("/w2/src/b.go", false)...)
	st, err := Load(h, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st.Scope.Budget != 4 || st.Workspace != "/w2" || !reflect.DeepEqual(st.Changed(), []string{"src/a.go", "src/b.go"}) {
		t.Fatalf("fork state %+v %v", st.Scope, st.Changed())
	}
	if _, err := SetScope(h, f.ID, Scope{Allow: []string{"**"}}, harness.ExecutorActor("default"), "subagent"); err == nil {
		t.Fatal("executor widened a fork's scope")
	}
	got, err := SetScope(h, f.ID, Scope{Allow: []string{"src/api/**"}}, harness.ExecutorActor("default"), "subagent")
	if err != nil || got.Budget != 4 {
		t.Fatalf("narrow: %+v %v", got, err)
	}
	if sc, _ := CurrentScope(h, s.ID); len(sc.Allow) != 1 || sc.Allow[0] != "src/**" {
		t.Fatalf("parent scope changed: %+v", sc)
	}
}

func flatten(step []any) (out []store.Record) {
	for _, x := range step {
		switch v := x.(type) {
		case store.Record:
			out = append(out, v)
		case []store.Record:
			out = append(out, v...)
		}
	}
	return out
}

func TestRewindDropsAbandonedChanges(t *testing.T) {
	h := openHarness(t)
	s := newSession(t, h, "alpha", "", &Scope{Budget: 2})
	evs := mustAppend(t, h, s.ID, snapshot("a.go"))
	mustAppend(t, h, s.ID, snapshot("b.go"))
	if st, _ := Load(h, s.ID); st.Drift().Total != 0.35 {
		t.Fatalf("before rewind %+v", st.Drift())
	}
	if _, err := h.Rewind(s.ID, evs[0].Seq); err != nil {
		t.Fatal(err)
	}
	if st, _ := Load(h, s.ID); st.Drift().Total != 0.175 || st.Changed()[0] != "a.go" {
		t.Fatalf("after rewind %+v", st.Drift())
	}
}
