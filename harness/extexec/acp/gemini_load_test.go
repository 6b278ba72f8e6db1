package acp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/exectest"
)

// A Gemini CLI session loaded by a later agent process (session/load) plays its history back
// as session updates after the load's answer: the next turn records none of it, not the first
// turn's shell call nor its answer text, only what the model did in the new turn.
func TestGeminiCLILoadedSessionRecordsNoPlayback(t *testing.T) {
	f, _ := geminiFixture(t, func(body []byte) string {
		b := string(body)
		switch {
		case strings.Contains(b, "second prompt"):
			return geminiText("second answer")
		case strings.Contains(b, `"functionResponse"`):
			return geminiText("first answer")
		}
		return geminiStep("Zmlyc3Q", "run_shell_command", `{"command": "echo first-shell"}`)
	})
	bin := geminiCLI(t)
	opts := Options{Command: []string{bin}, Exec: executor.Options{Approvals: map[string]string{"bash": "allow"}, Headless: true}}
	x := f.executor(t, opts)
	res, err := x.Prompt(context.Background(), f.s.ID, "first prompt: run a shell command", "test")
	okResult(t, res, err)
	first := f.events(t, f.s.ID)
	if n := len(exectest.Payloads[harness.ToolCompleted](t, first, harness.TypeToolCompleted)); n != 1 {
		t.Fatalf("the first turn recorded %d tool calls, want 1: %s", n, exectest.Types(first))
	}
	root := x.Session(f.s.ID).Dirs.Root
	x.Close()
	backdateGeminiChats(t, root)
	x2 := f.executor(t, opts)
	res, err = x2.Prompt(context.Background(), f.s.ID, "second prompt", "test")
	okResult(t, res, err)
	if !x2.Session(f.s.ID).Proc.(*proc).loaded {
		t.Fatalf("the second agent did not load the session: %+v", *exectest.Payloads[harness.AgentSession](t, f.events(t, f.s.ID), harness.TypeAgentSession)[0])
	}
	checkNoPlayback(t, f.events(t, f.s.ID)[len(first):], res.Response, "second answer", "first answer")
	if n := x2.Session(f.s.ID).Proc.(*proc).pb.droppedCount(); n != 2 {
		t.Errorf("%d updates taken for playback, want 2 (the shell call and the first answer)", n)
	}
}

// backdateGeminiChats renames the Gemini CLI's session files in an agent's state folder as if
// their sessions had started before any minute now: the CLI names a session's file by the
// minute the session started, and a session/load in that same minute starts a file of the same
// name whose empty conversation hides the saved one (the load fails, "No previous sessions
// found for this project", and exo starts a new session given the log); a load a minute later
// finds the files as the test leaves them.
func backdateGeminiChats(t *testing.T, root string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "home", ".gemini", "tmp", "*", "chats", "session-*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Gemini CLI session file in %s: %v", root, err)
	}
	for _, f := range files {
		base := filepath.Base(f)
		short := base[strings.LastIndex(base, "-"):]
		if err := os.Rename(f, filepath.Join(filepath.Dir(f), "session-2000-01-01T00-00"+short)); err != nil {
			t.Fatal(err)
		}
	}
}
