package governance

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// TestDriftIgnoresFilesThereBeforeTheSession: the files a workspace held when the session began
// (its baseline snapshot) are not the session's changes; only what it changed afterwards counts.
func TestDriftIgnoresFilesThereBeforeTheSession(t *testing.T) {
	h := openHarness(t)
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("out of scope, untouched\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n"), 0o644)
	s := newSession(t, h, "alpha", ws, &Scope{Allow: []string{"src/**"}, Budget: 4})
	if err := h.EnsureBaseline(s.ID, ""); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(ws, "src"), 0o755)
	os.WriteFile(filepath.Join(ws, "src", "a.go"), []byte("package src\n"), 0o644)
	if _, err := h.SnapshotWorkspace(s.ID, "", "c1"); err != nil {
		t.Fatal(err)
	}
	st, err := Load(h, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Changed(); !reflect.DeepEqual(got, []string{"src/a.go"}) {
		t.Fatalf("changed %v, want only src/a.go", got)
	}
	if d := st.Drift(); d.Changed != 1 || d.InScope != 1 {
		t.Fatalf("drift %+v", d)
	}
}

// TestHandoffReceiverKeepsTheConstitution: a receiver created by a handoff gets the sealed
// constitution's deny list, budget, policy and boundary even when the sender was created before
// the constitution (with no scope of its own).
func TestHandoffReceiverKeepsTheConstitution(t *testing.T) {
	h := openHarness(t)
	dir := project(t, "valid")
	a := newSession(t, h, "alpha", dir, nil)
	if _, _, err := Compile(dir); err != nil {
		t.Fatal(err)
	}
	res, err := Handoff(context.Background(), h, HandoffOptions{From: a.ID, To: "beta", Create: true,
		Finish: FinishOptions{Summary: "done"}})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := CurrentScope(h, res.To.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(sc.Deny, "**/*.pem") || !slices.Contains(sc.Deny, "secrets/**") || sc.Budget != 12 ||
		sc.Policy != PolicyRevert || !slices.Contains(sc.Boundary, "go.sum") {
		t.Fatalf("receiver scope ignores the constitution: %+v", sc)
	}
}
