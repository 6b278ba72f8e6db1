package views

import "testing"

func TestToolLabel(t *testing.T) {
	for in, want := range map[string]string{
		"mcp__fs__write_file": "fs › write_file", "mcp__github__list__issues": "github › list__issues", "bash": "bash",
		"mcp__": "mcp__", "mcp__fs": "mcp__fs", "mcp____x": "mcp____x", "mcp__fs__": "mcp__fs__",
	} {
		if got := ToolLabel(in); got != want {
			t.Errorf("ToolLabel(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"mcp__fs__read_text_file notes.md": "fs › read_text_file notes.md", "mcp__fs__echo": "fs › echo",
		"bash ls": "bash ls", "mcp fs connected (13 tools)": "mcp fs connected (13 tools)",
	} {
		if got := LabelLeadingTool(in); got != want {
			t.Errorf("LabelLeadingTool(%q) = %q, want %q", in, got, want)
		}
	}
}
