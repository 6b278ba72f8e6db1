package service

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/extexec/claude"
	"exo/harness/extexec/codex"
	"exo/harness/extexec/modeltest"
	"exo/sandbox"
)

// realAgents returns whether the real Claude Code and Codex CLIs are there; CI (which sets
// EXO_REQUIRE_CLAUDE and EXO_REQUIRE_CODEX) fails without them, elsewhere the test skips.
func realAgents(t *testing.T) {
	t.Helper()
	for _, c := range []struct {
		find    func() (string, error)
		require string
	}{{claude.FindBinary, "EXO_REQUIRE_CLAUDE"}, {codex.FindBinary, "EXO_REQUIRE_CODEX"}} {
		if _, err := c.find(); err != nil {
			if os.Getenv(c.require) != "" {
				t.Fatalf("%s is set but: %v", c.require, err)
			}
			t.Skipf("the real Claude Code and Codex CLIs are needed (.ci/run installs them): %v", err)
		}
	}
}

// TestAttemptsWithRealAgents runs one prompt as three attempts, under exo's own executor, the
// real Claude Code and the real Codex, each against a local fake model server (the one model,
// Anthropic's wire; Codex's Responses calls are translated by exo's endpoint), with a check.
// The model answers with two writes of answer.txt: Claude Code offers exo's tool as
// mcp__exo__write_file and knows no write_file, so it writes 41 and fails the check; exo's
// executor and Codex write 42 and pass. The scoreboard has a row for each, scored from its log.
func TestAttemptsWithRealAgents(t *testing.T) {
	realAgents(t)
	srv := modeltest.NewAnthropic(&modeltest.Script{Prompts: []modeltest.Prompt{{When: "write the answer", Turns: []modeltest.Turn{
		{Text: "Writing it.", ToolCalls: []modeltest.Call{
			{Name: "mcp__exo__write_file", Input: map[string]any{"path": "answer.txt", "content": "41\n"}},
			{Name: "write_file", Input: map[string]any{"path": "answer.txt", "content": "42\n"}}}},
		{Text: "The answer is written."}}}}})
	t.Cleanup(srv.Close)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	const key = "sk-ant-attempts-agents-0123456789"
	if err := h.SetSecret("k", []byte(key)); err != nil {
		t.Fatal(err)
	}
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "m", Provider: "anthropic", ModelID: "claude-sonnet-4-5", BaseURL: srv.URL, Secret: "k"}); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "answer.txt"), []byte("unknown\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.email=e@x", "-c", "user.name=e", "commit", "-qm", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	s, err := h.NewSession(harness.NewSessionOptions{Name: "quest", Workspace: ws, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	svc := New(h, Options{})
	t.Cleanup(func() { svc.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	set, err := svc.StartAttempts(ctx, api.AttemptsRequest{Session: s.ID, Executors: []string{"default", claude.Name, codex.Name},
		Check: "grep -qx 42 answer.txt", AutoApprove: true, Prompt: "write the answer"})
	if err != nil {
		t.Fatal(err)
	}
	set = waitSetDone(t, svc, h, set.ID)
	want := map[string]string{"default": "pass", claude.Name: "fail 1", codex.Name: "pass"}
	for _, r := range set.Rows {
		if r.Status != api.AttemptDone || r.CheckText() != want[r.Executor] || r.Steps == 0 || r.ToolCalls == 0 {
			t.Errorf("%s (%s): status %s %q, check %q (want %q), %d steps, %d tool calls", r.Name, r.Executor, r.Status, r.Reason, r.CheckText(), want[r.Executor], r.Steps, r.ToolCalls)
		}
		if r.Executor == claude.Name || r.Executor == codex.Name {
			se, err := h.Session(r.Session)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(filepath.Join(se.Workspace, "answer.txt"))
			t.Logf("%s wrote %q", r.Executor, b)
		}
	}
	if len(set.Rows) != 3 {
		t.Fatalf("%d rows", len(set.Rows))
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "answer.txt")); string(b) != "unknown\n" {
		t.Fatalf("the attempts changed the original's files: %q", b)
	}
	for _, r := range srv.Requests() {
		if strings.Contains(string(r.Body), key) {
			t.Fatal("the sealed key reached a request body")
		}
	}
}
