package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness/provider/providertest"
)

// TestCLICountsOfOne: the end-of-turn line of exo run and exo verify's line count one thing
// in the singular ("1 step · 0 tool calls", "2 steps · 1 tool call", "in 1 branch"), never
// "1 steps", "1 tool calls" or "1 branches".
func TestCLICountsOfOne(t *testing.T) {
	t.Parallel()
	srv := providertest.NewScriptedChat(providertest.ChatReply{Text: "hello"})
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644)
	mustRunIn(t, home, ws, "model", "register", "m", "--provider", "openai-compatible", "--base-url", srv.BaseURL())
	mustRunIn(t, home, ws, "new", "--name", "s")
	_, errs, code := exoEnv(t, home, ws, nil, "run", "--session", "s", "hi")
	if code != 0 || !strings.Contains(errs, "· 1 step · 0 tool calls ·") {
		t.Fatalf("exo run, one step: exit %d\n%s", code, errs)
	}
	srv.SetReplies(providertest.ChatReply{ToolCalls: []providertest.ChatToolCall{{ID: "r1", Name: "read_file", Args: `{"path":"a.txt"}`}}},
		providertest.ChatReply{Text: "read it"})
	_, errs, code = exoEnv(t, home, ws, nil, "run", "--session", "s", "read a.txt")
	if code != 0 || !strings.Contains(errs, "· 2 steps · 1 tool call ·") {
		t.Fatalf("exo run, one tool call: exit %d\n%s", code, errs)
	}
	if out := mustRunIn(t, home, ws, "verify"); !strings.Contains(out, "events in 1 branch verified") {
		t.Fatalf("exo verify: %s", out)
	}
}
