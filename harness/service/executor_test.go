package service

import (
	"context"
	"errors"
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
	// The selection, then the first turn's, which adds how the agent process is confined.
	sel := 0
	for _, e := range evs {
		if e.Type == harness.TypeExecutorSelected {
			p, _ := harness.Decode(e)
			if c := p.(*harness.ExecutorSelected).Confinement; (sel == 0) != (c == "") {
				t.Fatalf("executor.selected %d: confinement %q", sel, c)
			}
			sel++
		}
	}
	if n != 2 {
		t.Fatalf("%d executor.selected events", n)
	}
	all, _ := svc.ListSessions(ctx)
	if len(all) != 1 || all[0].Executor != "acp:"+bin {
		t.Fatalf("sessions list the executor as %q", all[0].Executor)
	}
	// The agent's mode: chosen for a turn, kept as the session's for the next ones.
	for _, mode := range []string{"plan", ""} {
		ts, err := svc.StartTurn(ctx, api.TurnRequest{Session: s.ID, Text: "do the tiny thing", Headless: true, AutoApprove: true, ExecutorMode: mode})
		if err != nil {
			t.Fatal(err)
		}
		if res, err := svc.WaitTurn(ctx, s.ID, ts.ID); err != nil || res.Failure != "" {
			t.Fatalf("turn in mode %q: %v %+v", mode, err, res)
		}
		if st, _ := h.State(s.ID); st.ExecutorMode != "plan" || st.AgentMode != "plan" {
			t.Fatalf("after a turn asking for mode %q: the session's %q, the agent's %q", mode, st.ExecutorMode, st.AgentMode)
		}
	}
	if _, err := svc.SelectExecutor(ctx, s.ID, "default"); err != nil {
		t.Fatal(err)
	}
	if st, _ := h.State(s.ID); st.Executor != "default" || st.ExecutorMode != "" {
		t.Fatalf("executor after switching back: %q (mode %q)", st.Executor, st.ExecutorMode)
	}
	if _, err := svc.StartTurn(ctx, api.TurnRequest{Session: s.ID, Text: "hi", Headless: true, ExecutorMode: "plan"}); !errors.Is(err, api.ErrInvalid) {
		t.Fatalf("a mode for exo's own executor: %v", err)
	}
}

// Native tool mode is a setting of the session: selected with the executor (/executor
// claude-code --native-tools), kept for turns that name no executor, changed by the next
// selection or a turn that names its executor; exo's own executor refuses it.
func TestNativeToolModeIsKeptPerSession(t *testing.T) {
	claudeBin := os.Getenv("EXO_CLAUDE_BIN")
	if claudeBin == "" {
		t.Skip("EXO_CLAUDE_BIN names the claude binary (.ci/run sets it)")
	}
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	s, err := h.NewSession(harness.NewSessionOptions{Name: "n", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	svc := New(h, Options{})
	t.Cleanup(func() { svc.Close() })
	ctx := context.Background()
	selected := func() []*harness.ExecutorSelected {
		var out []*harness.ExecutorSelected
		evs, _ := h.Events(s.ID, 0, 0)
		for _, e := range evs {
			if e.Type == harness.TypeExecutorSelected {
				p, _ := harness.Decode(e)
				out = append(out, p.(*harness.ExecutorSelected))
			}
		}
		return out
	}
	in, err := svc.SelectExecutor(ctx, s.ID, "claude-code --native-tools")
	if err != nil || in.Name != "claude-code" || !in.NativeTools {
		t.Fatalf("select: %+v %v", in, err)
	}
	if st, _ := h.State(s.ID); st.Executor != "claude-code" || !st.ExecutorNative {
		t.Fatalf("state %q native=%v", st.Executor, st.ExecutorNative)
	}
	if !svc.nativeTools(s.ID, "claude-code", api.TurnRequest{Session: s.ID}) {
		t.Fatal("a turn naming no executor does not keep the session's native mode")
	}
	if svc.nativeTools(s.ID, "claude-code", api.TurnRequest{Session: s.ID, Executor: "claude-code"}) {
		t.Fatal("a turn naming its executor without --native-tools kept native mode")
	}
	if _, err := svc.SelectExecutor(ctx, s.ID, "claude-code --native-tools"); err != nil || len(selected()) != 1 {
		t.Fatalf("the same choice again: %v, %d executor.selected", err, len(selected()))
	}
	if in, err := svc.SelectExecutor(ctx, s.ID, "claude-code"); err != nil || in.NativeTools {
		t.Fatalf("select without native tools: %+v %v", in, err)
	}
	if sel := selected(); len(sel) != 2 || sel[1].NativeTools || !sel[0].NativeTools {
		t.Fatalf("executor.selected %+v", sel)
	}
	if svc.nativeTools(s.ID, "claude-code", api.TurnRequest{Session: s.ID}) {
		t.Fatal("native mode outlived the selection that turned it off")
	}
	for _, bad := range []string{"default --native-tools", "claude-code --native", "codex --yolo"} {
		if _, err := svc.SelectExecutor(ctx, s.ID, bad); !errors.Is(err, api.ErrInvalid) {
			t.Fatalf("%q: %v", bad, err)
		}
	}
	if len(selected()) != 2 {
		t.Fatal("a refused choice was recorded")
	}
}
