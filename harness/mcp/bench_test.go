package mcp

import (
	"strings"
	"testing"

	"exo/harness/executor"
)

// BenchmarkMCPEchoCall is one tool call to a running, sandboxed stdio server (the npm
// everything server's echo), as the executor makes it.
func BenchmarkMCPEchoCall(b *testing.B) {
	entry := npmServer(b, "server-everything")
	r := newRig(b, map[string]ServerConfig{"every": {Command: "node", Args: []string{entry, "stdio"}, Approval: "auto"}}, "name: b\nturns:\n  - text: hi\n")
	call := executor.ExtCall{Session: r.s.ID, Branch: r.s.Branch, Workspace: r.ws, Name: "mcp__every__echo", Args: []byte(`{"message":"hi"}`)}
	if res := r.m.Call(b.Context(), call); !strings.Contains(res.Text, "hi") {
		b.Fatalf("%+v", res)
	}
	for b.Loop() {
		if res := r.m.Call(b.Context(), call); res.IsError {
			b.Fatalf("%+v", res)
		}
	}
}
