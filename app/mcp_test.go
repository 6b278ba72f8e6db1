package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/harness"
	"exo/harness/service"
)

// TestMCPStatusAndToolsOnScreen: the status bar shows the workspace's MCP servers (an untrusted
// project server in amber, named with how to trust it), MCP tools appear in the conversation
// with their server in the conversation and the timeline ("fs › read_text_file", never the raw
// mcp__fs__… name), and an MCP tool's
// approval names the server in the modal and the notice.
func TestMCPStatusAndToolsOnScreen(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no user servers
	h, err := harness.Open(t.TempDir(), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "demo", Provider: "scripted"}); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte(`{"mcpServers":{"web":{"command":"/no/such/server"}}}`), 0o644)
	s, _ := h.NewSession(harness.NewSessionOptions{Name: "mcp", Workspace: ws})
	h.Append(s.ID,
		harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: "read the notes"}),
		harness.MustRecord(harness.TypeToolStarted, "executor:default", harness.ToolStarted{CallID: "c1", Tool: "mcp__fs__read_text_file", Summary: "notes.md"}),
		harness.MustRecord(harness.TypeToolCompleted, "executor:default", harness.ToolCompleted{CallID: "c1", Tool: "mcp__fs__read_text_file", Output: "the notes"}),
	)
	svc := service.New(h, service.Options{})
	t.Cleanup(func() { svc.Close() })
	m := New(svc, Options{Session: s.ID, Theme: "dark"})
	m.Update(m.attachCmd()())
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	screen := ansi.Strip(m.render())
	if !strings.Contains(screen, "▣ fs › read_text_file notes.md") || strings.Contains(screen, "mcp__fs__read_text_file") {
		t.Fatalf("the MCP tool is not shown with its server (conversation and timeline):\n%s", screen)
	}
	if !strings.Contains(screen, "mcp 0/1 (web untrusted: exo trust)") {
		t.Fatalf("the status bar lacks the MCP servers' state:\n%s", screen)
	}
	ev, err := h.Append(s.ID, harness.MustRecord(harness.TypeApprovalRequested, "executor:default",
		harness.ApprovalRequested{CallID: "c2", Tool: "mcp__fs__write_file", Summary: "notes.md", Args: []byte(`{"path":"notes.md"}`)}))
	if err != nil {
		t.Fatal(err)
	}
	m.Update(noticesMsg{[]harness.Notice{{Session: s.ID, Events: ev}}})
	screen = ansi.Strip(m.render())
	if m.overlay == nil || !strings.Contains(screen, "Approve tool call?") || !strings.Contains(screen, "▣ fs › write_file") {
		t.Fatalf("the approval does not name the server:\n%s", screen)
	}
}
