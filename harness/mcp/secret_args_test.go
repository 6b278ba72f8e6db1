package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness/executor"
)

// A tool call's arguments reach an MCP server redacted: the model passes a sealed value (JSON-
// escaped in the arguments) to the filesystem server's write_file, and the file the server
// writes holds the label, not the value; no event holds it either.
func TestMCPArgumentsRedacted(t *testing.T) {
	entry := npmServer(t, "server-filesystem")
	const v = `tok-Qz7+Wx9 "Rv" <Lm&Nj>`
	r := newRig(t, map[string]ServerConfig{"fs": {Command: "node", Args: []string{entry, "."}, Approval: "auto"}}, `
name: fs
turns:
  - tool_calls:
      - name: mcp__fs__write_file
        args: {path: leak.txt, content: 'token=`+strings.ReplaceAll(v, "'", "''")+`'}
  - text: Done.
`)
	if err := r.h.SetSecret("tok", []byte(v)); err != nil {
		t.Fatal(err)
	}
	r.run(t, executor.Options{})
	w := byTool(t, r, "mcp__fs__write_file")
	if len(w) != 1 || w[0].IsError {
		t.Fatalf("write result %+v", w)
	}
	b, err := os.ReadFile(filepath.Join(r.ws, "leak.txt"))
	if err != nil || string(b) != "token=‹secret:tok›" {
		t.Fatalf("the server wrote %q (%v)", b, err)
	}
	if all := allEventBytes(t, r.h, r.s.ID); strings.Contains(all, "Qz7+Wx9") {
		t.Fatal("an event holds the value")
	}
}
