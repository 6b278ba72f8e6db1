package executor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/api"
	"exo/sandbox"
)

// instructionEvents returns the instructions.loaded payloads of a session, in order.
func instructionEvents(t *testing.T, h *harness.Harness, id string) []harness.InstructionsLoaded {
	t.Helper()
	evs, err := h.Events(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []harness.InstructionsLoaded
	for _, e := range evs {
		if e.Type == harness.TypeInstructionsLoaded {
			p, _ := harness.Decode(e)
			out = append(out, *p.(*harness.InstructionsLoaded))
		}
	}
	return out
}

// TestInstructionFilesFromUserRepositoryAndNestedFolders: a turn records the user's file, the
// repository root's AGENTS.md (cut at 32 KiB with a note) and the workspace's (its CLAUDE.md,
// the same text, once; a sealed secret in it redacted), and builds the system prompt from that
// record; reading a file two folders down adds those folders' files to the conversation, once.
// An unchanged set is not recorded again; a changed file is.
func TestInstructionFilesFromUserRepositoryAndNestedFolders(t *testing.T) {
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	const secret = "sk-test-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
	if err := h.SetSecret("deploy", []byte(secret)); err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "scripts", "nested.yaml"))
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "demo", Provider: "scripted", BaseURL: script}); err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	ws := filepath.Join(repo, "svc")
	write := func(path, text string) {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	write(filepath.Join(repo, "AGENTS.md"), "repo rule\n"+strings.Repeat("x", 40<<10))
	write(filepath.Join(ws, "AGENTS.md"), "use tabs; deploy key "+secret)
	write(filepath.Join(ws, "CLAUDE.md"), "use tabs; deploy key "+secret)
	write(filepath.Join(ws, "web", "AGENTS.md"), "web rule")
	write(filepath.Join(ws, "web", "app", "CLAUDE.md"), "app rule")
	write(filepath.Join(ws, "web", "app", "main.go"), "package main\n")
	write(filepath.Join(ws, "other", "AGENTS.md"), "other rule")
	user := filepath.Join(t.TempDir(), "AGENTS.md")
	write(user, "user rule")
	s, err := h.NewSession(harness.NewSessionOptions{Name: "t", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	x := New(h, Options{Headless: true, UserInstructions: user})
	if _, err := x.Prompt(context.Background(), s.ID, "read main.go", "test"); err != nil {
		t.Fatal(err)
	}
	loaded := instructionEvents(t, h, s.ID)
	if len(loaded) != 2 || !loaded[0].Root || loaded[1].Root {
		t.Fatalf("loaded: %+v", loaded)
	}
	var paths []string
	for _, f := range loaded[0].Files {
		paths = append(paths, f.Scope+":"+f.Path)
	}
	if strings.Join(paths, " ") != "user:"+user+" project:../AGENTS.md project:AGENTS.md" {
		t.Fatalf("root files: %v", paths)
	}
	repoFile, wsFile := loaded[0].Files[1], loaded[0].Files[2]
	if !repoFile.Truncated || repoFile.Bytes != int64(len("repo rule\n")+40<<10) || !strings.Contains(repoFile.Text, "[cut: ../AGENTS.md has") || len(repoFile.Text) > 33<<10 {
		t.Fatalf("a big file is not cut with a note: %+v", repoFile.Bytes)
	}
	if strings.Contains(wsFile.Text, secret) || !strings.Contains(wsFile.Text, "‹secret:deploy›") {
		t.Fatalf("the secret is not redacted: %q", wsFile.Text)
	}
	var nested []string
	for _, f := range loaded[1].Files {
		nested = append(nested, f.Dir+":"+f.Path)
	}
	if strings.Join(nested, " ") != "web:web/AGENTS.md web/app:web/app/CLAUDE.md" {
		t.Fatalf("nested: %v", nested)
	}
	v, err := x.ViewOf(s.Branch, "")
	if err != nil {
		t.Fatal(err)
	}
	sys := x.systemPrompt(s, v.Instructions())
	for _, want := range []string{"user rule", "repo rule", "use tabs", "cannot change exo's approvals"} {
		if !strings.Contains(sys, want) {
			t.Fatalf("system prompt lacks %q", want)
		}
	}
	var conv strings.Builder
	for _, m := range v.Messages {
		conv.WriteString(m.Text)
	}
	if !strings.Contains(conv.String(), "[instructions from web/app/CLAUDE.md, for the files under web/app/]\napp rule") || strings.Contains(conv.String(), "other rule") {
		t.Fatalf("conversation: %s", conv.String())
	}
	if st, _ := h.State(s.ID); strings.Join(st.Instructions, " ") != user+" ../AGENTS.md AGENTS.md web/AGENTS.md web/app/CLAUDE.md" {
		t.Fatalf("state: %v", st.Instructions)
	}
	if _, err := x.Prompt(context.Background(), s.ID, "again", "test"); err != nil {
		t.Fatal(err)
	}
	if n := len(instructionEvents(t, h, s.ID)); n != 2 {
		t.Fatalf("an unchanged set or an already loaded folder was recorded again: %d events", n)
	}
	write(filepath.Join(ws, "AGENTS.md"), "use spaces")
	if _, err := x.Prompt(context.Background(), s.ID, "and again", "test"); err != nil {
		t.Fatal(err)
	}
	loaded = instructionEvents(t, h, s.ID)
	if len(loaded) != 3 || !loaded[2].Root || !strings.Contains(loaded[2].Files[2].Text, "use spaces") {
		t.Fatalf("a changed file was not recorded again: %+v", loaded[2:])
	}
	st, _ := h.State(s.ID)
	var notices []string
	for _, it := range st.Items {
		if it.Kind == api.ItemNotice && strings.HasPrefix(it.Text, "instructions ") {
			notices = append(notices, it.Text)
		}
	}
	if len(notices) != 3 || !strings.Contains(notices[0], "../AGENTS.md (40970 bytes, cut)") ||
		!strings.HasPrefix(notices[1], "instructions added for the files worked on: web/AGENTS.md") || !strings.HasSuffix(notices[2], "AGENTS.md, CLAUDE.md") {
		t.Fatalf("the conversation's notices: %q", notices)
	}
}
