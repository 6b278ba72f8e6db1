package service

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/governance"
	"exo/sandbox"
)

// gateRig is a service whose session's workspace has a compiled constitution with the given
// approvals, and user settings (hooks) in a private config folder.
func gateRig(t *testing.T, approvals, userSettings string) (*Service, *harness.Session) {
	t.Helper()
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	if userSettings != "" {
		os.MkdirAll(filepath.Join(cfg, "exo"), 0o755)
		os.WriteFile(filepath.Join(cfg, "exo", "settings.json"), []byte(userSettings), 0o644)
	}
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".exo"), 0o755)
	os.WriteFile(filepath.Join(ws, ".exo", "constitution.yaml"), []byte("approvals:\n"+approvals), 0o644)
	if _, _, err := governance.Compile(ws); err != nil {
		t.Fatal(err)
	}
	s, err := h.NewSession(harness.NewSessionOptions{Name: "g", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	svc := New(h, Options{})
	t.Cleanup(func() { svc.Close() })
	return svc, s
}

// approvalEvents lists the session's approval events as "type actor decision".
func approvalEvents(t *testing.T, svc *Service, id string) []string {
	t.Helper()
	evs, err := svc.h.Events(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		switch e.Type {
		case harness.TypeApprovalRequested:
			out = append(out, "requested "+e.Actor)
		case harness.TypeApprovalResolved:
			p, _ := harness.Decode(e)
			out = append(out, "resolved "+e.Actor+" "+p.(*harness.ApprovalResolved).Decision)
		}
	}
	return out
}

func bashArgs(cmd string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return b
}

// Headless, a command whose policy asks is refused and the refusal recorded as the harness's;
// denied by policy it is refused without asking; auto it is allowed without asking.
func TestGateFollowsTheSessionsPolicy(t *testing.T) {
	svc, s := gateRig(t, "  bash: ask\n  grep: deny\n", "")
	ctx := context.Background()
	g, err := svc.Gate(ctx, api.GateRequest{Session: s.Name, Tool: "bash", Args: bashArgs("rm -rf x"), Summary: "rm -rf x", Headless: true})
	if err != nil || g.Allowed || !strings.Contains(g.Reason, "nobody can answer") {
		t.Fatalf("headless ask: %+v %v", g, err)
	}
	if got := approvalEvents(t, svc, s.ID); !slices.Equal(got, []string{"requested harness", "resolved harness deny"}) {
		t.Fatalf("events %v", got)
	}
	if g, err := svc.Gate(ctx, api.GateRequest{Session: s.ID, Tool: "grep", Headless: true}); err != nil || g.Allowed || !strings.Contains(g.Reason, "denied by this session's policy") {
		t.Fatalf("deny: %+v %v", g, err)
	}
	if g, err := svc.Gate(ctx, api.GateRequest{Session: s.ID, Tool: "read_file", Headless: true}); err != nil || !g.Allowed {
		t.Fatalf("auto: %+v %v", g, err)
	}
	// A default applies only where the session's rules name no policy.
	if g, err := svc.Gate(ctx, api.GateRequest{Session: s.ID, Tool: "rewind_session", Default: "ask", Headless: true}); err != nil || g.Allowed {
		t.Fatalf("default ask: %+v %v", g, err)
	}
	if g, err := svc.Gate(ctx, api.GateRequest{Session: s.ID, Tool: "grep", Default: "auto", Headless: true}); err != nil || g.Allowed {
		t.Fatalf("a default overrode the session's deny: %+v %v", g, err)
	}
	if _, err := svc.Gate(ctx, api.GateRequest{Session: s.ID, Tool: "bash", Default: "maybe"}); err == nil {
		t.Fatal("a bad default was accepted")
	}
	if _, err := svc.Gate(ctx, api.GateRequest{Session: s.ID, Tool: "bash", Args: json.RawMessage("{nope")}); err == nil {
		t.Fatal("bad arguments were accepted")
	}
}

// With someone to answer, the gate waits for the user's answer: once lets it through, deny
// refuses, always lets later ones through without asking; a caller that stops waiting leaves
// no open question.
func TestGateWaitsForTheUsersAnswer(t *testing.T) {
	svc, s := gateRig(t, "  bash: ask\n", "")
	ctx := context.Background()
	answer := func(decision string) api.GateResult {
		t.Helper()
		type res struct {
			g   api.GateResult
			err error
		}
		done := make(chan res, 1)
		go func() {
			g, err := svc.Gate(ctx, api.GateRequest{Session: s.ID, Tool: "bash", Args: bashArgs("make"), Summary: "make"})
			done <- res{g, err}
		}()
		id := waitPending(t, svc, s)
		if err := svc.Approve(ctx, s.ID, id, decision); err != nil {
			t.Fatal(err)
		}
		r := <-done
		if r.err != nil || r.g.CallID != id {
			t.Fatalf("%+v %v (asked %s)", r.g, r.err, id)
		}
		return r.g
	}
	if g := answer("once"); !g.Allowed {
		t.Fatalf("once: %+v", g)
	}
	if g := answer("deny"); g.Allowed || !strings.Contains(g.Reason, "denied") {
		t.Fatalf("deny: %+v", g)
	}
	if g := answer("always"); !g.Allowed {
		t.Fatalf("always: %+v", g)
	}
	n := len(approvalEvents(t, svc, s.ID))
	if g, err := svc.Gate(ctx, api.GateRequest{Session: s.ID, Tool: "bash", Args: bashArgs("make"), Headless: true}); err != nil || !g.Allowed {
		t.Fatalf("after always: %+v %v", g, err)
	}
	if m := len(approvalEvents(t, svc, s.ID)); m != n {
		t.Fatalf("asked again after always (%d → %d approval events)", n, m)
	}

	// A caller that gives up: its question is answered as denied by the harness.
	svc2, s2 := gateRig(t, "  bash: ask\n", "")
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan api.GateResult, 1)
	go func() {
		g, _ := svc2.Gate(cctx, api.GateRequest{Session: s2.ID, Tool: "bash", Args: bashArgs("x")})
		done <- g
	}()
	waitPending(t, svc2, s2)
	cancel()
	if g := <-done; g.Allowed {
		t.Fatalf("allowed after the caller left: %+v", g)
	}
	st, _ := svc2.h.BranchState(s2.Branch)
	if len(st.Approvals) != 0 {
		t.Fatalf("approvals still open: %v", st.Approvals)
	}
}

// The user's PreToolUse hooks apply to the gate as to the agent's own calls: a block refuses,
// an allow skips the asking, a rewrite changes the command.
func TestGateRunsPreToolUseHooks(t *testing.T) {
	hook := filepath.Join(t.TempDir(), "hook.sh")
	os.WriteFile(hook, []byte(`#!/bin/sh
input=$(cat)
case "$input" in
  *forbidden*) echo "no forbidden things" >&2; exit 2 ;;
  *trusted*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo rewritten"}}}' ;;
esac
`), 0o755)
	settings := `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"` + hook + `"}]}]}}`
	svc, s := gateRig(t, "  bash: ask\n", settings)
	ctx := context.Background()
	g, err := svc.Gate(ctx, api.GateRequest{Session: s.ID, Tool: "bash", Args: bashArgs("forbidden"), Headless: true})
	if err != nil || g.Allowed || !strings.Contains(g.Reason, "no forbidden things") {
		t.Fatalf("block: %+v %v", g, err)
	}
	g, err = svc.Gate(ctx, api.GateRequest{Session: s.ID, Tool: "bash", Args: bashArgs("trusted"), Headless: true})
	if err != nil || !g.Allowed || !strings.Contains(string(g.Args), "echo rewritten") {
		t.Fatalf("allow and rewrite: %+v %v", g, err)
	}
	if got := approvalEvents(t, svc, s.ID); len(got) != 0 {
		t.Fatalf("the hook's allow still asked: %v", got)
	}
}

// waitPending waits until the session has an approval waiting and returns its call id.
func waitPending(t *testing.T, svc *Service, s *harness.Session) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		st, err := svc.h.BranchState(s.Branch)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Approvals) > 0 {
			return st.Approvals[0]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no approval was asked")
	return ""
}
