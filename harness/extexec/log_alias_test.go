package extexec

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"exo/harness"
)

// aliasLog is a Log whose last answer holds calls, as the endpoint recorded them (raw names).
func aliasLog(calls ...harness.ToolCall) *Log {
	l := &Log{lastCalls: map[string]bool{}}
	l.cond = sync.NewCond(&l.mu)
	raw := make([]string, len(calls))
	for i, c := range calls {
		raw[i] = c.Name
		l.lastCalls[c.ID] = true
	}
	l.noteAnswer(calls, raw)
	return l
}

// The Gemini CLI's own ids for calls it got without one resolve to the recorded calls: its ACP
// ids (NAME__ID) by name in the answer's order, its history's ids by position, and exo's tools
// called over MCP (no id) by name and arguments, each call once.
func TestLogResolvesAgentCallIDs(t *testing.T) {
	t.Parallel()
	l := aliasLog(
		harness.ToolCall{ID: "exo-gemini-r-0", Name: "run_shell_command", Arguments: json.RawMessage(`{"command":"ls"}`)},
		harness.ToolCall{ID: "exo-gemini-r-1", Name: "run_shell_command", Arguments: json.RawMessage(`{"command":"pwd"}`)},
		harness.ToolCall{ID: "exo-gemini-r-2", Name: "mcp_exo_bash", Arguments: json.RawMessage(`{"command":"id", "n": 1}`)},
		harness.ToolCall{ID: "model-id", Name: "read_file", Arguments: json.RawMessage(`{}`)},
	)
	for _, c := range []struct{ agent, want, name string }{
		{"run_shell_command__run_shell_command_17_0", "exo-gemini-r-0", "run_shell_command"},
		{"run_shell_command__run_shell_command_17_1", "exo-gemini-r-1", "run_shell_command"},
		{"run_shell_command__run_shell_command_17_0", "exo-gemini-r-0", "run_shell_command"}, // asked again: the same
		{"read_file__model-id", "model-id", "read_file"},                                     // the model's own id, with the CLI's prefix
		{"model-id", "model-id", "read_file"},
	} {
		got, ok := l.ModelCall(c.agent)
		if !ok || got.ID != c.want || got.Name != c.name {
			t.Errorf("ModelCall(%s) = %+v %v, want %s %s", c.agent, got, ok, c.want, c.name)
		}
	}
	if got, ok := l.ModelCall("run_shell_command__run_shell_command_17_9"); ok {
		t.Errorf("a third run_shell_command resolved to %+v", got)
	}
	if got, ok := l.ModelCall("unknown"); ok {
		t.Errorf("an unknown id resolved to %+v", got)
	}
	if id := l.HostCall("bash", json.RawMessage(`{"n":1,"command":"id"}`), time.Second); id != "exo-gemini-r-2" {
		t.Errorf("HostCall = %q", id)
	}
	if id := l.HostCall("bash", json.RawMessage(`{"n":1,"command":"id"}`), time.Second); id != "" {
		t.Errorf("the same host call resolved twice: %q", id)
	}
	if id := l.HostCall("bash", json.RawMessage(`{"command":"other"}`), time.Second); id != "" {
		t.Errorf("other arguments resolved to %q", id)
	}
	results := l.resolveResults([]string{"run_shell_command_17_0", "run_shell_command_17_1", "x", "model-id"},
		[]string{"run_shell_command_17_0", "run_shell_command_17_1", "x", "model-id"})
	if want := []string{"exo-gemini-r-0", "exo-gemini-r-1", "exo-gemini-r-2", "model-id"}; !equalStrings(results, want) {
		t.Errorf("results %v, want %v", results, want)
	}
	if !l.answersLast(results) {
		t.Error("the resolved results do not answer the last answer")
	}
	if got := l.resolveResults([]string{"y"}, []string{"y"}); l.answersLast(got) {
		t.Errorf("a request with another number of calls was placed on the answer: %v", got)
	}
}

// equalStrings reports whether a and b hold the same strings in order.
func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
