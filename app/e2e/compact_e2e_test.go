package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness/provider/providertest"
)

// TestExoCompactAndExoLogShowTheHistory runs three turns that read a file, compacts the
// session by hand with exo compact (a summarising model call) and checks exo log still holds
// every turn next to the compaction.applied event.
func TestExoCompactAndExoLogShowTheHistory(t *testing.T) {
	t.Parallel()
	reply := providertest.ChatReply{Text: "read it", ToolCalls: []providertest.ChatToolCall{{ID: "r1", Name: "read_file", Args: `{"path":"README.md"}`}}}
	srv := providertest.NewScriptedChat(reply, providertest.ChatReply{Text: "done"})
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	// A readme long enough that a summary of the turns that read it is smaller than they are (a
	// summary no smaller than what it replaces is not applied).
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("# sample\n"+strings.Repeat("A line of the sample project's readme.\n", 60)), 0o644)
	mustRunIn(t, home, ws, "model", "register", "chat", "--provider", "openai-compatible", "--model-id", "local",
		"--base-url", srv.BaseURL(), "--context-window", "32000")
	mustRunIn(t, home, ws, "new", "--name", "lead")
	for i := 0; i < 3; i++ {
		srv.SetReplies(reply, providertest.ChatReply{Text: "done"}, providertest.ChatReply{Text: "summary of the work"})
		mustRunIn(t, home, ws, "run", "--session", "lead", "read the readme")
	}
	if out := mustRunIn(t, home, ws, "compact", "lead"); !strings.Contains(out, "summarised older turns") {
		t.Fatalf("exo compact: %s", out)
	}
	log := mustRunIn(t, home, ws, "log", "lead")
	if strings.Count(log, "read the readme") != 3 || !strings.Contains(log, "compaction.applied") || !strings.Contains(log, "summarize") {
		t.Fatalf("exo log:\n%s", log)
	}
}
