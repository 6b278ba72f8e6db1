package acp

import (
	"context"
	"strings"
	"testing"

	"exo/harness/extexec/conformance"
)

// The terminal command an ACP agent runs in exo's sandbox (terminal/create) is a sandbox.exec
// span (mode task) covering the command's run, in the session's invoke_agent turn (the suite's
// spans behaviour covers exo's bash; this is the ACP terminal).
func TestACPTerminalIsASpan(t *testing.T) {
	conformance.RecordSpans()
	f := newFixture(t)
	x := f.executor(t, Options{Command: []string{tinyAgent(t)}})
	res, err := x.Prompt(context.Background(), f.s.ID, "do the tiny thing", "test")
	okResult(t, res, err)
	var turn, task bool
	var names []string
	for _, s := range conformance.SessionSpans(f.s.ID) {
		attrs := map[string]string{}
		for _, kv := range s.Attributes {
			attrs[string(kv.Key)] = kv.Value.String()
		}
		names = append(names, s.Name)
		turn = turn || (strings.HasPrefix(s.Name, "invoke_agent acp:") && attrs["gen_ai.operation.name"] == "invoke_agent")
		task = task || (s.Name == "sandbox.exec" && attrs["exo.sandbox.mode"] == "task" && strings.Contains(attrs["process.command_line"], "terminal-ok") && attrs["process.exit.code"] == "0")
	}
	if !turn || !task {
		t.Fatalf("spans of the session: %v", names)
	}
}
