package service

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"exo/harness"
	"exo/harness/api"
	"exo/sandbox"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// TestSelectedExecutorRunsTheNextTurn selects an ACP agent (the ACP package's test agent, built
// here) for a session: the next turn, started with no executor named, runs with it; selecting
// exo's own switches back.
func TestSelectedExecutorRunsTheNextTurn(t *testing.T) {
	dir, err := os.MkdirTemp("/var/tmp", "exo-tinyagent-") // outside /tmp, which the agent's sandbox replaces
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "tinyagent")
	if out, err := exec.Command("go", "build", "-o", bin, "../extexec/acp/testdata/tinyagent").CombinedOutput(); err != nil {
		t.Fatalf("build tinyagent: %v\n%s", err, out)
	}
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "m", Provider: "anthropic", ModelID: "claude-x", BaseURL: "http://127.0.0.1:9"}); err != nil { // the agent makes no model calls
		t.Fatal(err)
	}
	ws := t.TempDir()
	s, err := h.NewSession(harness.NewSessionOptions{Name: "x", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	svc := New(h, Options{})
	t.Cleanup(func() { svc.Close() })
	ctx := context.Background()
	if _, err := svc.SelectExecutor(ctx, s.ID, "acp:"+bin); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SelectExecutor(ctx, s.ID, "acp:"+bin); err != nil { // again: nothing new recorded
		t.Fatal(err)
	}
	if _, err := svc.SelectExecutor(ctx, s.ID, "acp:/no/such/agent"); err == nil {
		t.Fatal("a missing agent was selected")
	}
	ts, err := svc.StartTurn(ctx, api.TurnRequest{Session: s.ID, Text: "do the tiny thing", Headless: true, AutoApprove: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.WaitTurn(ctx, s.ID, ts.ID)
	if err != nil || res.Failure != "" {
		t.Fatalf("turn: %v %+v", err, res)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "acp.txt")); err != nil || string(b) != "written by tinyagent\n" {
		t.Fatalf("the selected agent did not run the turn: %q %v", b, err)
	}
	n := 0
	evs, _ := h.Events(s.ID, 0, 0)
	for _, e := range evs {
		if e.Type == harness.TypeExecutorSelected {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d executor.selected events", n)
	}
	all, _ := svc.ListSessions(ctx)
	if len(all) != 1 || all[0].Executor != "acp:"+bin {
		t.Fatalf("sessions list the executor as %q", all[0].Executor)
	}
	if _, err := svc.SelectExecutor(ctx, s.ID, "default"); err != nil {
		t.Fatal(err)
	}
	if st, _ := h.State(s.ID); st.Executor != "default" {
		t.Fatalf("executor after switching back: %q", st.Executor)
	}
}
