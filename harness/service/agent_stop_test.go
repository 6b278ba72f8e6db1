package service

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/sandbox"
)

// agentPids lists the running processes whose program is bin.
func agentPids(bin string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.HasPrefix(cmd, []byte(bin+"\x00")) {
			out = append(out, e.Name())
		}
	}
	return out
}

// waitAgents waits until n processes of bin run (or a minute passed) and returns how many do.
func waitAgents(bin string, n int) int {
	deadline := time.Now().Add(time.Minute)
	for {
		got := len(agentPids(bin))
		if got == n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestAgentNotLeftRunningForALeftOrRemovedSession: an external agent kept between turns is
// stopped when its session's turns go to exo's own executor or to the same agent in another
// mode, and when the session is removed. (Before, it ran on until the daemon stopped: after
// `exo session rm` with its state folder deleted under it and its token still open, and one
// more agent process for every mode the session had run in.)
func TestAgentNotLeftRunningForALeftOrRemovedSession(t *testing.T) {
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
	script := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(script, []byte("turns:\n  - text: done\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "m", Provider: "scripted", BaseURL: script}); err != nil {
		t.Fatal(err)
	}
	s, err := h.NewSession(harness.NewSessionOptions{Name: "x", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	svc := New(h, Options{})
	t.Cleanup(func() { svc.Close() })
	ctx := context.Background()
	turn := func(req api.TurnRequest) {
		t.Helper()
		req.Session, req.Headless, req.AutoApprove = s.ID, true, true
		ts, err := svc.StartTurn(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if res, err := svc.WaitTurn(ctx, s.ID, ts.ID); err != nil || res.Failure != "" {
			t.Fatalf("turn %+v: %v %+v", req, err, res)
		}
	}
	agent := "acp:" + bin
	turn(api.TurnRequest{Text: "do the tiny thing", Executor: agent})
	if n := waitAgents(bin, 1); n != 1 {
		t.Fatalf("%d agents run after its turn, want the one kept for the next", n)
	}
	turn(api.TurnRequest{Text: "hello", Executor: "default"})
	if n := waitAgents(bin, 0); n != 0 {
		t.Fatalf("%d agents left running after the session went back to exo's executor", n)
	}
	turn(api.TurnRequest{Text: "do the tiny thing", Executor: agent})
	turn(api.TurnRequest{Text: "do the tiny thing", Executor: agent, ExecutorMode: "plan"})
	if n := waitAgents(bin, 1); n != 1 {
		t.Fatalf("%d agents run for one session after a turn in another mode", n)
	}
	if _, err := svc.RemoveSession(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if n := waitAgents(bin, 0); n != 0 {
		t.Fatalf("%d agents left running for a removed session", n)
	}
}
