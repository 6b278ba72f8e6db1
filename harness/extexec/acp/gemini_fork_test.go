package acp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
)

// A fork of a Gemini CLI session continues in a CLI of its own (its own state folder) that is
// given the conversation up to the fork's event: the first turn's prompt, its exo bash call and
// output and its answer, nothing of the turn after the fork point. A fork whose state folder
// holds a link in place of the CLI's home is refused with a reason naming it, and the link's
// target is left alone.
func TestGeminiCLIForkSeesHistoryUpToTheEvent(t *testing.T) {
	f, srv := geminiFixture(t, func(body []byte) string {
		b := string(body)
		switch {
		case strings.Contains(b, "what word did I say"):
			return geminiText("You said PAPAYA.")
		case strings.Contains(b, "MANGO"):
			return geminiText("I will remember MANGO.")
		case strings.Contains(b, `"functionResponse"`):
			return geminiText("I will remember PAPAYA.")
		}
		return geminiStep("Zm9yazE", "mcp_exo_bash", `{"command": "echo papaya-noted"}`)
	})
	x := f.executor(t, Options{Command: []string{geminiCLI(t)}})
	res, err := x.Prompt(context.Background(), f.s.ID, "remember the word PAPAYA", "test")
	okResult(t, res, err)
	var at uint64
	for _, e := range f.events(t, f.s.ID) {
		if e.Type == harness.TypeExecutorResult {
			at = e.Seq
		}
	}
	res, err = x.Prompt(context.Background(), f.s.ID, "remember the word MANGO", "test")
	okResult(t, res, err)
	child, err := f.h.Fork(f.s.ID, at, harness.ForkOptions{Name: "child"})
	if err != nil {
		t.Fatal(err)
	}
	res, err = x.Prompt(context.Background(), child.ID, "what word did I say? (fork)", "test")
	okResult(t, res, err)
	calls := srv.streamCalls()
	last := string(calls[len(calls)-1].Body)
	for _, s := range []string{"remember the word PAPAYA", "echo papaya-noted", "papaya-noted\\n", "I will remember PAPAYA.", "what word did I say? (fork)"} {
		if !strings.Contains(last, s) {
			t.Errorf("the fork's CLI was not given %q", s)
		}
	}
	if strings.Contains(last, "MANGO") {
		t.Error("the fork's CLI was given the turn after the fork point")
	}
	if t.Failed() {
		t.Fatalf("the fork's request:\n%.4000s", last)
	}
	parent, forked := x.Session(f.s.ID).Dirs.Root, x.Session(child.ID).Dirs.Root
	if parent == forked || filepath.Base(forked) != child.ID || filepath.Dir(parent) != filepath.Dir(forked) {
		t.Fatalf("state folders: parent %s, fork %s", parent, forked)
	}
	if _, err := os.Stat(filepath.Join(forked, "home", ".gemini", "settings.json")); err != nil {
		t.Fatalf("the fork's CLI has no settings of its own: %v", err)
	}
	checkGeminiKey(t, srv, x, f)

	// A fork whose state folder holds a link where the CLI's home goes.
	linked, err := f.h.Fork(f.s.ID, at, harness.ForkOptions{Name: "linked"})
	if err != nil {
		t.Fatal(err)
	}
	victim := t.TempDir()
	root := filepath.Join(filepath.Dir(parent), linked.ID)
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(root, "home")); err != nil {
		t.Fatal(err)
	}
	res, err = x.Prompt(context.Background(), linked.ID, "what word did I say? (linked)", "test")
	if err == nil && res.Failure == "" {
		t.Fatalf("a fork whose CLI home is a link ran: %+v", res)
	}
	if msg := res.Failure + " " + errString(err); !strings.Contains(msg, "link") || !strings.Contains(msg, filepath.Join(root, "home")) {
		t.Fatalf("the refusal does not name the link: %q", msg)
	}
	if ents, _ := os.ReadDir(victim); len(ents) != 0 {
		t.Fatalf("exo or the CLI wrote through the link: %v", ents)
	}
}

// errString is err's text, "" for none.
func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
