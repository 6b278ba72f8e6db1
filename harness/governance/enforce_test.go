package governance

import (
	"encoding/json"
	"reflect"
	"testing"

	"exo/harness"
)

func TestEnforceRecordAndRevert(t *testing.T) {
	changed := []harness.FileChange{
		{Path: "src/ok.go", Kind: "modified"},
		{Path: "docs/out.md", Kind: "added"},
		{Path: ".git/config", Kind: "modified"},
		{Path: "src/new.go", Kind: "renamed", From: "docs/old.go"},
	}
	scope := Scope{Allow: []string{"src/**"}}
	rec := Enforce(scope, changed)
	if len(rec.Violations) != 3 || len(rec.Revert) != 0 {
		t.Fatalf("record: %d violations, revert %v", len(rec.Violations), rec.Revert)
	}
	var v harness.PolicyViolation
	if err := json.Unmarshal(rec.Violations[1].Data, &v); err != nil {
		t.Fatal(err)
	}
	if v.Path != ".git/config" || v.Rule != "boundary:.git/**" || v.Action != ActionRecorded {
		t.Fatalf("violation %+v", v)
	}
	scope.Policy = PolicyRevert
	rev := Enforce(scope, changed)
	if want := []string{"docs/out.md", ".git/config", "src/new.go", "docs/old.go"}; !reflect.DeepEqual(rev.Revert, want) {
		t.Fatalf("revert %v, want %v", rev.Revert, want)
	}
	_ = json.Unmarshal(rev.Violations[0].Data, &v)
	if v.Action != ActionReverted || v.Rule != "allow" {
		t.Fatalf("violation %+v", v)
	}

	h := openHarness(t)
	s := newSession(t, h, "alpha", "/w", &scope)
	mustAppend(t, h, s.ID, rev.Violations...)
	st, _ := h.State(s.ID)
	if st.Violations != 3 {
		t.Fatalf("harness counted %d violations", st.Violations)
	}
}

func TestEnforceSessionUsesTheLoggedScope(t *testing.T) {
	h := openHarness(t)
	s := newSession(t, h, "alpha", "/w", &Scope{Allow: []string{"src/**"}, Policy: PolicyRevert})
	got, err := EnforceSession(h, s.ID, []harness.FileChange{{Path: "src/a.go", Kind: "modified"}, {Path: "x.txt", Kind: "added"}})
	if err != nil || len(got.Violations) != 1 || !reflect.DeepEqual(got.Revert, []string{"x.txt"}) {
		t.Fatalf("%+v %v", got, err)
	}
}
