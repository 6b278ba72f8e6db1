package governance

import (
	"context"
	"errors"
	"strings"
	"testing"

	"exo/harness"
)

// fakeRunner is a scripted check runner: exit codes and outputs by command.
func fakeRunner(results map[string]int) (Runner, *[]string) {
	var ran []string
	return func(_ context.Context, cmd string) (int, string, error) {
		ran = append(ran, cmd)
		code, ok := results[cmd]
		if !ok {
			return -1, "", errors.New("not found")
		}
		return code, "line 1\n" + cmd + " said " + strings.Repeat("x", code) + "\n", nil
	}, &ran
}

func TestFinishRunsChecksAndWritesMemento(t *testing.T) {
	h := openHarness(t)
	s := newSession(t, h, "alpha", "/w", &Scope{Allow: []string{"src/**"}, Budget: 4})
	mustAppend(t, h, s.ID, harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: "go"}))
	mustAppend(t, h, s.ID, write("src/a.go", false)...)
	mustAppend(t, h, s.ID, snapshot("src/a.go", "docs/b.md"))
	mustAppend(t, h, s.ID, Enforce(Scope{Allow: []string{"src/**"}}, []harness.FileChange{{Path: "docs/b.md", Kind: "added"}}).Violations...)

	checks := []Check{{Name: "tests", Run: "go test ./..."}, {Name: "vet", Run: "go vet ./..."}}
	if _, err := Finish(context.Background(), h, s.ID, FinishOptions{Checks: checks}); err == nil {
		t.Fatal("checks without a runner")
	}
	run, ran := fakeRunner(map[string]int{"go test ./...": 0, "go vet ./...": 1})
	m, err := Finish(context.Background(), h, s.ID, FinishOptions{Checks: checks, Run: run})
	if err != nil {
		t.Fatal(err)
	}
	if len(*ran) != 2 || m.Turns != 1 || m.Tools["write_file"] != 1 || len(m.Files) != 2 || m.Drift != 0.425 {
		t.Fatalf("memento %+v", m)
	}
	if !m.Checks[0].Passed || m.Checks[1].Passed || m.Checks[1].ExitCode != 1 {
		t.Fatalf("checks %+v", m.Checks)
	}
	if !strings.Contains(m.Summary, "Changed 2 file(s) (docs/b.md, src/a.go) in 1 turn(s) using write_file×1; drift 0.42") ||
		!strings.Contains(m.Summary, "checks 1/2 passed") {
		t.Fatalf("summary %q", m.Summary)
	}
	if len(m.Learned) != 2 || !strings.Contains(m.Learned[0], "check vet (go vet ./...) failed: exit 1") ||
		!strings.Contains(m.Learned[1], "policy violation: recorded allow docs/b.md") {
		t.Fatalf("learned %q", m.Learned)
	}
	st, _ := h.State(s.ID)
	if st.Status != harness.StatusFinished {
		t.Fatalf("status %s", st.Status)
	}
	evs, _ := h.Events(s.ID, 1, 0)
	if n := len(evs); evs[n-2].Type != TypeSessionMemento || evs[n-1].Type != harness.TypeSessionFinished {
		t.Fatalf("last events %s %s", evs[n-2].Type, evs[n-1].Type)
	}
	if _, err := Finish(context.Background(), h, s.ID, FinishOptions{}); !errors.Is(err, ErrFinished) {
		t.Fatalf("second finish: %v", err)
	}
}

func TestHandoffDeliveredExactlyOnce(t *testing.T) {
	h := openHarness(t)
	a := newSession(t, h, "alpha", "/w", &Scope{Allow: []string{"src/**"}, Budget: 9})
	mustAppend(t, h, a.ID, snapshot("src/api.go"))
	res, err := Handoff(context.Background(), h, HandoffOptions{From: "alpha", To: "beta", Create: true,
		Note: "write the tests for src/api.go", Finish: FinishOptions{Summary: "built the API"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || res.Memento == nil || res.To.Name != "beta" {
		t.Fatalf("result %+v", res)
	}
	if sc, _ := CurrentScope(h, res.To.ID); sc.Budget != 9 {
		t.Fatalf("receiver scope %+v", sc)
	}
	sa, _ := Load(h, a.ID)
	if !sa.Finished || len(sa.Pending()) != 0 {
		t.Fatalf("sender state finished=%v pending=%v", sa.Finished, sa.Pending())
	}
	first, err := BuildBootstrap(h, res.To.ID, nil, harness.ExecutorActor("default"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Handoff from session alpha (branch " + a.Branch, "What was done: built the API",
		"Next steps: write the tests for src/api.go"} {
		if !strings.Contains(first.Text, want) {
			t.Fatalf("bootstrap lacks %q:\n%s", want, first.Text)
		}
	}
	if len(first.Deliver) != 1 {
		t.Fatalf("deliver %d", len(first.Deliver))
	}
	// Before delivery is recorded, a fork of the receiver does not inherit the handoff.
	f, err := h.Fork(res.To.ID, 0, harness.ForkOptions{Name: "beta-fork", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if fs, _ := Load(h, f.ID); len(fs.Pending()) != 0 {
		t.Fatal("a fork received the handoff")
	}
	mustAppend(t, h, res.To.ID, first.Deliver...)
	second, err := BuildBootstrap(h, res.To.ID, nil, harness.ExecutorActor("default"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(second.Text, "Handoff") || len(second.Deliver) != 0 {
		t.Fatalf("handoff delivered twice:\n%s", second.Text)
	}
	// Handing off a finished session again reuses its summary and does not finish it twice.
	if _, err := Handoff(context.Background(), h, HandoffOptions{From: "alpha", To: "beta"}); err != nil {
		t.Fatal(err)
	}
	if st, _ := Load(h, res.To.ID); len(st.Pending()) != 1 || st.Pending()[0].Summary != "built the API" {
		t.Fatalf("second handoff %+v", st.Pending())
	}
	if _, err := Handoff(context.Background(), h, HandoffOptions{From: "beta", To: "beta"}); !errors.Is(err, ErrSameSession) {
		t.Fatalf("self handoff: %v", err)
	}
	if _, err := Handoff(context.Background(), h, HandoffOptions{From: "beta", To: "nobody"}); !errors.Is(err, harness.ErrNoSession) {
		t.Fatalf("missing receiver without create: %v", err)
	}
}
