package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness/provider/providertest"
)

// TestTUIMentionAttachesFile types "explain @ma" in the app: the popup lists the workspace's
// files through the daemon (the .gitignore'd one left out), tab completes the mention, and on
// send the model's request body carries the file's content while the conversation shows the
// attachment line.
func TestTUIMentionAttachesFile(t *testing.T) {
	t.Parallel()
	srv := providertest.NewScriptedChat(providertest.ChatReply{Text: "it prints hello"})
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\n// MENTIONED-e2e-41c7\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "manual.md"), []byte("# manual\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "marks.log"), []byte("IGNORED-e2e\n"), 0o644)
	os.WriteFile(filepath.Join(ws, ".gitignore"), []byte("*.log\n"), 0o644)
	exoEnv(t, home, ws, nil, "model", "register", "m", "--provider", "openai-compatible", "--base-url", srv.BaseURL())
	mustRunIn(t, home, ws, "new", "--name", "mention")
	scr := startTmux(t, 120, 40, "cd "+ws+" && EXO_HOME="+home+" "+exoBin+" attach mention --theme dark; sleep 60")
	scr.waitFor("the session loaded", contains(" mention │"))
	scr.keys("explain @ma")
	s := scr.waitFor("the @ popup", func(s string) bool {
		return strings.Contains(s, "tab complete") && strings.Contains(s, "main.go") && strings.Contains(s, "manual.md")
	})
	if strings.Contains(s, "marks.log") {
		t.Fatalf("the popup lists a .gitignore'd file:\n%s", s)
	}
	scr.keys("in")
	scr.waitFor("the popup narrowed to main.go", func(s string) bool {
		return strings.Contains(s, "tab complete") && !strings.Contains(s, "manual.md")
	})
	scr.keys("Tab")
	scr.waitFor("the mention completed", func(s string) bool {
		return strings.Contains(s, "explain @main.go") && !strings.Contains(s, "tab complete")
	})
	scr.keys("please", "Enter")
	scr.waitFor("the answer", contains("it prints hello"))
	scr.waitFor("the attachment line", contains("attached main.go"))
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	if body := string(reqs[0].Body); !strings.Contains(body, "MENTIONED-e2e-41c7") || !strings.Contains(body, "explain @main.go please") {
		t.Fatalf("the request does not carry main.go: %s", body)
	}
	scr.keys("C-q")
}

// TestCLIMentionInFork runs the issue's steps: `exo fork S`, then `exo run --session FORK
// "explain @main.go"`. The fork's working copy lives under EXO_HOME, and its main.go reaches the
// model; a link planted in the copy to exo's secret key does not.
func TestCLIMentionInFork(t *testing.T) {
	t.Parallel()
	srv := providertest.NewScriptedChat(providertest.ChatReply{Text: "it prints hello"})
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\n// FORK-MENTIONED-5a2e\n"), 0o644)
	mustRunIn(t, home, ws, "model", "register", "m", "--provider", "openai-compatible", "--base-url", srv.BaseURL())
	mustRunIn(t, home, ws, "new", "--name", "s")
	mustRunIn(t, home, ws, "fork", "s", "--name", "side")
	copies, _ := filepath.Glob(filepath.Join(home, "workspaces", "*"))
	if len(copies) != 1 {
		t.Fatalf("fork copies under EXO_HOME: %v", copies)
	}
	os.Symlink(filepath.Join(home, "secret.key"), filepath.Join(copies[0], "key"))
	out := mustRunIn(t, home, ws, "run", "--session", "side", "explain @main.go @key")
	if !strings.Contains(out, "it prints hello") {
		t.Fatalf("exo run: %s", out)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	body := string(reqs[0].Body)
	if !strings.Contains(body, "FORK-MENTIONED-5a2e") {
		t.Fatalf("the request does not carry the fork's main.go: %s", body)
	}
	if !strings.Contains(body, `<attached_file path=\"key\" note=\"not attached`) {
		t.Fatalf("the planted link was not refused with a note: %s", body)
	}
}
