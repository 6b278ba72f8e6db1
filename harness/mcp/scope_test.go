package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/governance"
)

// The real filesystem server, run unconfined and allowed folders outside the workspace (so that
// only exo stands in the way): writes outside the session's scope, outside the workspace, into
// hook configuration, and reads of exo's home are refused before the call reaches the server —
// the files never appear; in-scope writes, and writes beneath a folder the server's "writable"
// names, go through; a read-only tool reads outside the scope.
func TestMCPPathsRefusedBeforeTheCall(t *testing.T) {
	entry := npmServer(t, "server-filesystem")
	other, extra := t.TempDir(), t.TempDir()
	r := newRig(t, nil, "")
	home := r.h.Home()
	f := &File{MCPServers: map[string]ServerConfig{
		"fs":  {Command: "node", Args: []string{entry, ".", other, home}, Approval: "auto", Sandbox: "off"},
		"fsw": {Command: "node", Args: []string{entry, ".", extra}, Approval: "auto", Sandbox: "off", Writable: []string{extra}},
	}}
	if err := f.Write(filepath.Join(r.ws, ProjectFile)); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(r.ws, "src"), 0o755)
	os.MkdirAll(filepath.Join(r.ws, "docs"), 0o755)
	os.WriteFile(filepath.Join(r.ws, "docs", "guide.md"), []byte("the guide\n"), 0o644)
	if _, err := governance.SetScope(r.h, r.s.ID, governance.Scope{Allow: []string{"src/**"}}, harness.ActorUser, "test"); err != nil {
		t.Fatal(err)
	}
	calls := []struct{ tool, args string }{
		{"mcp__fs__write_file", jsonArgs(map[string]string{"path": "docs/out.txt", "content": "x"})},
		{"mcp__fs__write_file", jsonArgs(map[string]string{"path": filepath.Join(other, "escape.txt"), "content": "x"})},
		{"mcp__fs__write_file", jsonArgs(map[string]string{"path": "src/../../escape2.txt", "content": "x"})},
		{"mcp__fs__write_file", jsonArgs(map[string]string{"path": ".mcp.json", "content": "{}"})},
		{"mcp__fs__move_file", jsonArgs(map[string]string{"source": "docs/guide.md", "destination": "src/guide.md"})},
		{"mcp__fs__read_text_file", jsonArgs(map[string]string{"path": filepath.Join(home, "exo.db")})},
		{"mcp__fs__write_file", jsonArgs(map[string]string{"path": "src/ok.txt", "content": "in scope\n"})},
		{"mcp__fsw__write_file", jsonArgs(map[string]string{"path": filepath.Join(extra, "allowed.txt"), "content": "writable\n"})},
		{"mcp__fs__read_text_file", jsonArgs(map[string]string{"path": "docs/guide.md"})},
	}
	var script strings.Builder
	script.WriteString("name: scope\nturns:\n")
	for _, c := range calls {
		script.WriteString("  - tool_calls:\n      - name: " + c.tool + "\n        args: " + c.args + "\n")
	}
	script.WriteString("  - text: Done.\n")
	sp := filepath.Join(t.TempDir(), "script.yaml")
	os.WriteFile(sp, []byte(script.String()), 0o644)
	if _, err := r.h.RegisterModel(harness.ModelSpec{Name: "scope", Provider: "scripted", BaseURL: sp}); err != nil {
		t.Fatal(err)
	}
	if err := r.h.SetDefaultModel("scope"); err != nil {
		t.Fatal(err)
	}
	res := r.run(t, executor.Options{CheckWrite: governance.CheckWriteHook(r.h)})
	if res.Failure != "" {
		t.Fatalf("%+v", res)
	}
	got := events[harness.ToolCompleted](t, r.h, r.s.ID, harness.TypeToolCompleted)
	if len(got) != len(calls) {
		t.Fatalf("%d results for %d calls", len(got), len(calls))
	}
	for i, want := range []string{"scope", "outside the workspace", "outside the workspace", "hooks or MCP servers", "scope", "denied", "", "", ""} {
		g := got[i]
		if want == "" {
			if g.IsError {
				t.Errorf("call %d (%s) failed: %s", i, calls[i].args, g.Output)
			}
			continue
		}
		if !g.IsError || !strings.Contains(g.Output, "refused before calling MCP server") || !strings.Contains(g.Output, want) {
			t.Errorf("call %d (%s): want a refusal about %q, got %s", i, calls[i].args, want, g.Output)
		}
	}
	for _, p := range []string{filepath.Join(r.ws, "docs", "out.txt"), filepath.Join(other, "escape.txt"), filepath.Join(filepath.Dir(r.ws), "escape2.txt"), filepath.Join(r.ws, "src", "guide.md")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written although the call was refused", p)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(r.ws, ".mcp.json")); strings.TrimSpace(string(b)) == "{}" {
		t.Error(".mcp.json was overwritten")
	}
	if _, err := os.Stat(filepath.Join(r.ws, "docs", "guide.md")); err != nil {
		t.Error("the refused move moved the file")
	}
	if b, _ := os.ReadFile(filepath.Join(r.ws, "src", "ok.txt")); string(b) != "in scope\n" {
		t.Error("the in-scope write did not happen")
	}
	if b, _ := os.ReadFile(filepath.Join(extra, "allowed.txt")); string(b) != "writable\n" {
		t.Error("the write beneath the server's writable folder did not happen")
	}
	if !strings.Contains(got[8].Output, "the guide") {
		t.Errorf("read-only tool outside the scope: %s", got[8].Output)
	}
	if d := events[harness.SecretDenied](t, r.h, r.s.ID, harness.TypeSecretDenied); len(d) != 1 || d[0].Tool != "mcp__fs__read_text_file" {
		t.Errorf("secret.denied events: %+v", d)
	}
}
