package service

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/executor"
	"exo/harness/extexec/claude"
	"exo/harness/extexec/modeltest"
	"exo/harness/governance"
	"exo/sandbox"
)

// TestClaudeNativeAskReachesTheApp: with the project's policy bash: ask, Claude's own `ls` in the
// workspace — a use Claude allows itself without can_use_tool — waits for an approval that the
// service's Approve answers, as the app does: allowed once, the listing reaches the model; denied,
// it does not, and Claude is told exo's reason.
func TestClaudeNativeAskReachesTheApp(t *testing.T) {
	if _, err := claude.FindBinary(); err != nil {
		if os.Getenv("EXO_REQUIRE_CLAUDE") != "" {
			t.Fatal(err)
		}
		t.Skipf("the real Claude Code CLI is needed: %v", err)
	}
	for _, decision := range []string{executor.DecisionOnce, executor.DecisionDeny} {
		t.Run(decision, func(t *testing.T) {
			srv := modeltest.NewAnthropic(&modeltest.Script{Prompts: []modeltest.Prompt{{When: "list the files", Turns: []modeltest.Turn{
				{ToolCalls: []modeltest.Call{{Name: "Bash", Input: map[string]any{"command": "ls", "description": "list files"}}}},
				{Text: "Listed."}}}}})
			t.Cleanup(srv.Close)
			h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { h.Close() })
			if err := h.SetSecret("k", []byte("sk-ant-service-test-0123456789")); err != nil {
				t.Fatal(err)
			}
			if _, err := h.RegisterModel(harness.ModelSpec{Name: "m", Provider: "anthropic", ModelID: "claude-sonnet-4-5", BaseURL: srv.URL, Secret: "k"}); err != nil {
				t.Fatal(err)
			}
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			ws := t.TempDir()
			os.WriteFile(filepath.Join(ws, "ls-marker-51e9.txt"), []byte("x\n"), 0o644)
			os.MkdirAll(filepath.Join(ws, ".exo"), 0o755)
			os.WriteFile(filepath.Join(ws, ".exo", "constitution.yaml"), []byte("approvals:\n  bash: ask\n"), 0o644)
			if _, _, err := governance.Compile(ws); err != nil {
				t.Fatal(err)
			}
			s, err := h.NewSession(harness.NewSessionOptions{Name: "cc", Workspace: ws})
			if err != nil {
				t.Fatal(err)
			}
			svc := New(h, Options{Executor: executor.Options{ApprovalTimeout: 5 * time.Minute}})
			t.Cleanup(func() { svc.Close() })
			ctx := context.Background()
			ts, err := svc.StartTurn(ctx, api.TurnRequest{Session: s.ID, Text: "list the files", Source: "tui", Executor: claude.Name, NativeTools: true})
			if err != nil {
				t.Fatal(err)
			}
			callID := waitApproval(t, h, s.ID)
			if err := svc.Approve(ctx, s.ID, callID, decision); err != nil {
				t.Fatal(err)
			}
			res, err := svc.WaitTurn(ctx, s.ID, ts.ID)
			if err != nil || res.Failure != "" {
				t.Fatalf("turn: %v %+v", err, res)
			}
			listed := false
			for _, r := range srv.Requests() {
				listed = listed || bytes.Contains(r.Body, []byte("ls-marker-51e9"))
			}
			if listed != (decision == executor.DecisionOnce) {
				t.Fatalf("decision %s: the listing reached the model: %v", decision, listed)
			}
			evs, _ := h.Events(s.ID, 0, 0)
			var req *harness.ApprovalRequested
			for _, e := range evs {
				if e.Type == harness.TypeApprovalRequested {
					p, _ := harness.Decode(e)
					req = p.(*harness.ApprovalRequested)
				}
			}
			if req == nil || req.CallID != callID || !strings.Contains(req.Tool+req.Summary, "Bash") {
				t.Fatalf("approval.requested %+v", req)
			}
		})
	}
}

// waitApproval waits until the session has a call waiting for approval and returns it.
func waitApproval(t *testing.T, h *harness.Harness, sessionID string) string {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		st, err := h.State(sessionID)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Approvals) > 0 {
			return st.Approvals[0]
		}
		evs, _ := h.Events(sessionID, 0, 0)
		var types []string
		for _, e := range evs {
			types = append(types, e.Type)
		}
		if all := strings.Join(types, " "); strings.Contains(all, harness.TypeExecutorResult) || strings.Contains(all, harness.TypeExecutorFailed) {
			for _, e := range evs {
				if e.Type == harness.TypeToolCompleted || e.Type == harness.TypeToolStarted {
					t.Logf("%s %s", e.Type, e.Data)
				}
			}
			t.Fatalf("the turn ended without asking: %s", all)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("no approval was asked")
	return ""
}
