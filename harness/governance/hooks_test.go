package governance

import (
	"context"
	"errors"
	"strings"
	"testing"

	"exo/harness"
)

func TestDeliverHandoffsOnce(t *testing.T) {
	h := openHarness(t)
	a := newSession(t, h, "alpha", "/w", nil)
	b := newSession(t, h, "beta", "/w", nil)
	if _, err := Handoff(context.Background(), h, HandoffOptions{From: a.ID, To: b.ID, Note: "ship it"}); err != nil {
		t.Fatal(err)
	}
	got, err := DeliverHandoffs(h, b.ID, harness.ExecutorActor("default"))
	if err != nil || len(got) != 1 {
		t.Fatalf("first delivery %v %v", got, err)
	}
	again, err := DeliverHandoffs(h, b.ID, harness.ExecutorActor("default"))
	if err != nil || len(again) != 0 {
		t.Fatalf("second delivery %v %v", again, err)
	}
	st, _ := h.State(b.ID)
	last := st.Items[len(st.Items)-1]
	if st.Turns != 1 || last.Kind != harness.ItemUser || !strings.Contains(last.Text, "Next steps: ship it") {
		t.Fatalf("conversation %+v", st.Items)
	}
	if none, _ := DeliverHandoffs(h, a.ID, "x"); len(none) != 0 {
		t.Fatal("the sender received its own handoff")
	}
}

func TestExecutorHooks(t *testing.T) {
	h := openHarness(t)
	ws := project(t, "valid")
	if _, _, err := Compile(ws); err != nil {
		t.Fatal(err)
	}
	c, err := VerifyLock(ws)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := NewScope(c, ScopeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, h, "alpha", ws, &sc)
	check := CheckWriteHook(h)
	if err := check(s.ID, "src/a.go"); err != nil {
		t.Fatal(err)
	}
	if err := check(s.ID, "secrets/key"); !errors.Is(err, ErrOutOfScope) {
		t.Fatalf("denied by the constitution: %v", err)
	}
	if err := check(s.ID, "go.sum"); !errors.Is(err, ErrBoundary) {
		t.Fatalf("constitution boundary: %v", err)
	}
	extra := SystemExtraHook(h)(s.ID)
	for _, want := range []string{"- Keep changes small.", "Your scope: only src/**, docs/**, except **/*.pem, secrets/**",
		"Change at most 12 files.", "shell changes outside it are reverted"} {
		if !strings.Contains(extra, want) {
			t.Fatalf("system extra lacks %q:\n%s", want, extra)
		}
	}
	if m := c.ApprovalMap("bash", "write_file"); m["bash"] != "ask" || m["*"] != "deny" || m["write_file"] != "deny" || m["read_file"] != "auto" {
		t.Fatalf("approvals %v", m)
	}
}
