package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness/provider/providertest"
)

// TestRunShowsToolOutputPreview: text-mode exo run shows several lines of a tool's output
// under its call, and how many more there are, not only the first line.
func TestRunShowsToolOutputPreview(t *testing.T) {
	t.Parallel()
	srv := providertest.NewScriptedChat(
		providertest.ChatReply{ToolCalls: []providertest.ChatToolCall{{ID: "r1", Name: "read_file", Args: `{"path":"notes.txt"}`}}},
		providertest.ChatReply{Text: "read it"})
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "note-line-%02d\n", i)
	}
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte(b.String()), 0o644)
	mustRunIn(t, home, ws, "model", "register", "m", "--provider", "openai-compatible", "--base-url", srv.BaseURL())
	_, errs, code := exoEnv(t, home, ws, nil, "run", "read notes.txt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"note-line-01", "note-line-02", "note-line-05", "… +"} {
		if !strings.Contains(errs, want) {
			t.Fatalf("no %q in exo run's output:\n%s", want, errs)
		}
	}
	if strings.Contains(errs, "note-line-06") {
		t.Fatalf("the preview is not bounded:\n%s", errs)
	}
}
