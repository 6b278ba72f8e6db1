package mcp

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/executor"
)

// The filesystem server from npm: the scripted model reads a file (auto-approved by the
// server's autoApprove), writes one (asks; approved by --yes), and the write is snapshotted.
func TestFilesystemServerToolsThroughScriptedModel(t *testing.T) {
	entry := npmServer(t, "server-filesystem")
	r := newRig(t, map[string]ServerConfig{
		"fs": {Command: "node", Args: []string{entry, "."}, AutoApprove: []string{"read_text_file"}},
	}, `
name: fs
turns:
  - text: Reading the readme through MCP.
    tool_calls:
      - name: mcp__fs__read_text_file
        args: {path: README.md}
  - text: Writing a note.
    tool_calls:
      - name: mcp__fs__write_file
        args: {path: notes.txt, content: "written by the MCP filesystem server\n"}
  - text: Done.
`)
	tools := r.m.Tools(t.Context(), r.s.ID)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	joined := strings.Join(names, " ")
	for _, want := range []string{"mcp__fs__read_text_file", "mcp__fs__write_file", "mcp__fs__list_directory"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("tools %s lack %s", joined, want)
		}
	}
	if !strings.HasPrefix(tools[0].Description, "[MCP server fs]") {
		t.Fatalf("description %q", tools[0].Description)
	}
	res := r.run(t, executor.Options{AutoApprove: true})
	if res.Failure != "" || res.ToolCalls != 2 {
		t.Fatalf("result %+v", res)
	}
	reads := byTool(t, r, "mcp__fs__read_text_file")
	if len(reads) != 1 || reads[0].IsError || !strings.Contains(reads[0].Output, "hello from the workspace") {
		t.Fatalf("read result %+v", reads)
	}
	if b, err := os.ReadFile(filepath.Join(r.ws, "notes.txt")); err != nil || !strings.Contains(string(b), "MCP filesystem") {
		t.Fatalf("notes.txt: %q %v", b, err)
	}
	asked := events[harness.ApprovalRequested](t, r.h, r.s.ID, harness.TypeApprovalRequested)
	if len(asked) != 1 || asked[0].Tool != "mcp__fs__write_file" {
		t.Fatalf("approvals asked: %+v (read_text_file is auto-approved, write_file asks)", asked)
	}
	var snapped bool
	for _, s := range events[harness.WorkspaceSnapshot](t, r.h, r.s.ID, harness.TypeWorkspaceSnapshot) {
		for _, c := range s.Changed {
			snapped = snapped || c.Path == "notes.txt"
		}
	}
	if !snapped {
		t.Fatal("the MCP write was not recorded by a workspace snapshot")
	}
	st := events[harness.MCPServer](t, r.h, r.s.ID, harness.TypeMCPServer)
	if len(st) == 0 || st[0].State != harness.MCPConnected || st[0].Tools < 5 || !strings.HasPrefix(st[0].Confinement, "sandboxed") {
		t.Fatalf("mcp.server events %+v", st)
	}
}

// Headless without --yes, a tool that asks is refused and the model is told why.
func TestMCPToolAskFailsClosedHeadless(t *testing.T) {
	entry := npmServer(t, "server-filesystem")
	r := newRig(t, map[string]ServerConfig{"fs": {Command: "node", Args: []string{entry, "."}}}, `
name: fs
turns:
  - tool_calls:
      - name: mcp__fs__write_file
        args: {path: nope.txt, content: "x"}
  - text: Done.
`)
	r.run(t, executor.Options{})
	w := byTool(t, r, "mcp__fs__write_file")
	if len(w) != 1 || !w[0].IsError || !strings.Contains(w[0].Output, "approval needed") {
		t.Fatalf("write result %+v", w)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "nope.txt")); err == nil {
		t.Fatal("the refused call still wrote the file")
	}
}

// A result over the inline limit is stored whole as an artifact; the model sees head and tail.
func TestBigMCPResultBecomesAnArtifact(t *testing.T) {
	entry := npmServer(t, "server-filesystem")
	r := newRig(t, map[string]ServerConfig{"fs": {Command: "node", Args: []string{entry, "."}, Approval: "auto"}}, `
name: big
turns:
  - tool_calls:
      - name: mcp__fs__read_text_file
        args: {path: big.txt}
  - text: Done.
`)
	big := strings.Repeat("0123456789abcdef\n", 6000) + "THE-END\n"
	os.WriteFile(filepath.Join(r.ws, "big.txt"), []byte(big), 0o644)
	r.run(t, executor.Options{})
	out := byTool(t, r, "mcp__fs__read_text_file")
	if len(out) != 1 || !out[0].Truncated || out[0].Artifact == "" || out[0].TotalBytes < int64(len(big)) || len(out[0].Output) > InlineLimit {
		t.Fatalf("result: truncated=%v artifact=%q total=%d inline=%d", out[0].Truncated, out[0].Artifact, out[0].TotalBytes, len(out[0].Output))
	}
	if !strings.Contains(out[0].Output, "THE-END") {
		t.Fatal("the tail is not inline")
	}
	rc, _, err := r.h.Store().OpenArtifact(out[0].Artifact)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	if !strings.Contains(string(b), big) {
		t.Fatalf("artifact holds %d bytes, not the whole output", len(b))
	}
	if s, bad := Summary(r.h, r.ws); s != "mcp 1/1" || bad {
		t.Fatalf("summary %q %v", s, bad)
	}
}
