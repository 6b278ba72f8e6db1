package governance

import (
	"strings"
	"testing"

	"exo/harness"
)

func TestConflictBetweenTwoSessions(t *testing.T) {
	h := openHarness(t)
	a := newSession(t, h, "alpha", "/proj", nil)
	mustAppend(t, h, a.ID, snapshot("src/shared.go", "src/a.go"))
	// beta is a fork in its own copy of the project: it inherits alpha's changes, which are no
	// conflict, and then changes shared.go itself.
	b, err := h.Fork(a.ID, 0, harness.ForkOptions{Name: "beta", Workspace: "/copies/beta"})
	if err != nil {
		t.Fatal(err)
	}
	other := newSession(t, h, "gamma", "/elsewhere", nil) // another project: never conflicts
	mustAppend(t, h, other.ID, snapshot("src/shared.go"))
	if cs, err := RecordConflicts(h); err != nil || len(cs) != 0 {
		t.Fatalf("inherited changes conflict: %v %v", cs, err)
	}
	mustAppend(t, h, b.ID, snapshot("src/shared.go", "src/b.go"))
	if cs, err := RecordConflicts(h); err != nil || len(cs) != 0 {
		t.Fatalf("only beta changed shared.go since the fork: %v %v", cs, err)
	}
	mustAppend(t, h, a.ID, snapshot("src/shared.go"))
	cs, err := RecordConflicts(h)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Path != "src/shared.go" || cs[0].Shared {
		t.Fatalf("conflicts %+v", cs)
	}
	if _, err := RecordConflicts(h); err != nil { // a second scan adds nothing
		t.Fatal(err)
	}
	for _, id := range []string{a.ID, b.ID} {
		st, err := Load(h, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Conflicts) != 1 || st.Conflicts[0].Path != "src/shared.go" {
			t.Fatalf("%s conflicts %+v", id, st.Conflicts)
		}
	}
	if st, _ := Load(h, other.ID); len(st.Conflicts) != 0 {
		t.Fatalf("other project got %+v", st.Conflicts)
	}
}

func TestSharedWorkspaceConflict(t *testing.T) {
	ms := []Member{
		{ID: "a", Name: "alpha", Workspace: "/p", Project: "/p", Files: map[string]*Touch{"x": {Path: "x", Origins: map[string]uint64{"a": 2}}}},
		{ID: "b", Name: "beta", Workspace: "/p/", Project: "/p", Files: map[string]*Touch{"x": {Path: "x", Origins: map[string]uint64{"b": 3}}}},
	}
	cs := DetectConflicts(ms)
	if len(cs) != 1 || !cs[0].Shared {
		t.Fatalf("%+v", cs)
	}
	recs := ConflictRecords(cs, ms, nil)
	if len(recs["a"]) != 1 || len(recs["b"]) != 1 || !strings.Contains(string(recs["a"][0].Data), `"with":"b"`) {
		t.Fatalf("records %+v", recs)
	}
}

func TestUnifiedDiff(t *testing.T) {
	d := UnifiedDiff("src/x.go", "alpha", "a\nb\nc\n", "beta", "a\nB\nc\n")
	for _, want := range []string{"--- alpha/src/x.go", "+++ beta/src/x.go", "-b", "+B"} {
		if !strings.Contains(d, want) {
			t.Fatalf("diff lacks %q:\n%s", want, d)
		}
	}
	if UnifiedDiff("x", "a", "same", "b", "same") != "" {
		t.Fatal("equal files give a diff")
	}
}

func TestConflictWithForkInItsOwnCopy(t *testing.T) {
	h := openHarness(t)
	ws := t.TempDir()
	a := newSession(t, h, "alpha", ws, nil)
	b, err := h.Fork(a.ID, 0, harness.ForkOptions{Name: "beta"}) // the harness copies the workspace
	if err != nil {
		t.Fatal(err)
	}
	if b.Workspace == ws {
		t.Fatalf("fork shares the workspace %s", ws)
	}
	mustAppend(t, h, a.ID, snapshot("main.go"))
	mustAppend(t, h, b.ID, snapshot("main.go"))
	cs, err := RecordConflicts(h)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Shared || cs[0].Path != "main.go" {
		t.Fatalf("conflicts %+v", cs)
	}
}

func TestFleet(t *testing.T) {
	h := openHarness(t)
	a := newSession(t, h, "alpha", "/p", &Scope{Allow: []string{"src/**"}, Budget: 2})
	b := newSession(t, h, "beta", "/p", nil)
	mustAppend(t, h, a.ID, snapshot("src/x.go", "docs/y.md"))
	mustAppend(t, h, b.ID, snapshot("src/x.go"))
	if _, err := RecordConflicts(h); err != nil {
		t.Fatal(err)
	}
	fl, err := Fleet(h)
	if err != nil {
		t.Fatal(err)
	}
	if len(fl) != 2 || fl[0].Name != "alpha" || fl[0].Drift.Total != 0.6 || fl[0].Drift.Level != LevelMid ||
		len(fl[0].Conflicts) != 1 || fl[1].Conflicts[0].WithName != "alpha" || !fl[1].Conflicts[0].Shared {
		t.Fatalf("fleet %+v", fl)
	}
}
