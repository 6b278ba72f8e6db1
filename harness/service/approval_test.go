package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/api"
	"exo/sandbox"
)

// approvalScript reads a file, then writes one.
const approvalScript = `name: approval
turns:
  - tool_calls:
      - name: read_file
        args: {path: seen.txt}
  - tool_calls:
      - name: write_file
        args: {path: written.txt, content: "x"}
  - text: done
`

// approvalHarness opens a service with the approval script as the default model and a session
// in a fresh workspace.
func approvalHarness(t *testing.T) (*Service, *harness.Harness, *harness.Session, string) {
	t.Helper()
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	script := filepath.Join(t.TempDir(), "approval.yaml")
	if err := os.WriteFile(script, []byte(approvalScript), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "s", Provider: "scripted", BaseURL: script}); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "seen.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := h.NewSession(harness.NewSessionOptions{Name: "a", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	svc := New(h, Options{})
	t.Cleanup(func() { svc.Close() })
	return svc, h, s, ws
}

// turnOutcome runs one headless turn and returns the tool results by tool.
func turnOutcome(t *testing.T, svc *Service, h *harness.Harness, s *harness.Session, req api.TurnRequest) map[string]string {
	t.Helper()
	ctx := context.Background()
	req.Session, req.Text, req.Headless = s.ID, "go", true
	ts, err := svc.StartTurn(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.WaitTurn(ctx, s.ID, ts.ID); err != nil {
		t.Fatal(err)
	}
	evs, err := h.Events(s.ID, ts.Seq+1, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range evs {
		if p, err := harness.Decode(e); err == nil {
			if c, ok := p.(*harness.ToolCompleted); ok {
				out[c.Tool] = c.Output
			}
		}
	}
	return out
}

// TestApprovalModes runs the same turn under each mode: read-only refuses the write, ask
// cannot be answered headless (refused, asking recorded), auto runs it; reading always runs.
func TestApprovalModes(t *testing.T) {
	svc, h, s, ws := approvalHarness(t)
	got := turnOutcome(t, svc, h, s, api.TurnRequest{Approval: "read-only"})
	if !strings.Contains(got["read_file"], "hello") || !strings.Contains(got["write_file"], "read-only") {
		t.Fatalf("read-only: %q", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "written.txt")); err == nil {
		t.Fatal("read-only wrote a file")
	}
	got = turnOutcome(t, svc, h, s, api.TurnRequest{Approval: "ask"})
	if !strings.Contains(got["write_file"], "approval needed") {
		t.Fatalf("ask, headless: %q", got)
	}
	// The session keeps the mode when a client sends none (a wake-up, an MCP client).
	got = turnOutcome(t, svc, h, s, api.TurnRequest{})
	if !strings.Contains(got["write_file"], "approval needed") {
		t.Fatalf("kept ask mode: %q", got)
	}
	got = turnOutcome(t, svc, h, s, api.TurnRequest{Approval: "auto"})
	if _, err := os.Stat(filepath.Join(ws, "written.txt")); err != nil {
		t.Fatalf("auto: the write did not run: %q", got)
	}
	if _, err := svc.StartTurn(context.Background(), api.TurnRequest{Session: s.ID, Text: "x", Approval: "yolo"}); err == nil || !strings.Contains(err.Error(), "yolo") {
		t.Fatalf("an unknown mode: %v", err)
	}
}

// TestProjectFileTightensTheMode: the workspace's .exo/config.toml asking for read-only wins
// over a client asking for auto; a malformed one stops the turn naming its line.
func TestProjectFileTightensTheMode(t *testing.T) {
	svc, h, s, ws := approvalHarness(t)
	pf := filepath.Join(ws, ".exo", "config.toml")
	if err := os.MkdirAll(filepath.Dir(pf), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pf, []byte("approval = \"read-only\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := turnOutcome(t, svc, h, s, api.TurnRequest{Approval: "auto"})
	if !strings.Contains(got["write_file"], "read-only") {
		t.Fatalf("the project's read-only did not apply: %q", got)
	}
	if err := os.WriteFile(pf, []byte("\napproval = \"auto\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := svc.StartTurn(context.Background(), api.TurnRequest{Session: s.ID, Text: "x", Approval: "auto"})
	if err == nil || !strings.Contains(err.Error(), pf+":2") {
		t.Fatalf("a malformed project file: %v", err)
	}
}
