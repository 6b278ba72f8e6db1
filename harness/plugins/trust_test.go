package plugins

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/provider/providertest"
	"exo/harness/trust"
	"exo/sandbox"
)

// A fork's workspace copy follows the trust of the project it was forked from: the trusted
// hook runs in the copy, and stops running once the copy's settings differ from what was trusted.
func TestForkFollowsProjectTrust(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	read := providertest.ChatReply{ToolCalls: []providertest.ChatToolCall{{ID: "r", Name: "read_file", Args: `{"path":"README"}`}}}
	srv := providertest.NewScriptedChat(read, providertest.ChatReply{Text: "one"}, read, providertest.ChatReply{Text: "two"}, read, providertest.ChatReply{Text: "three"})
	t.Cleanup(srv.Close)
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "m", Provider: "openai-compatible", ModelID: "m", BaseURL: srv.BaseURL()}); err != nil {
		t.Fatal(err)
	}
	ws, marks := t.TempDir(), t.TempDir()
	mark := filepath.Join(marks, "ran")
	settings := []byte(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"echo x >> ` + mark + `"}]}]}}`)
	write(t, filepath.Join(ws, "README"), "hi\n")
	write(t, filepath.Join(ws, ".exo", "settings.json"), string(settings))
	if err := trust.Open(h.Home()).Trust(ws, map[string]string{".exo/settings.json": trust.Hash(settings)}); err != nil {
		t.Fatal(err)
	}
	s, err := h.NewSession(harness.NewSessionOptions{Name: "p", Workspace: ws, Settings: map[string]string{"model": "m"}})
	if err != nil {
		t.Fatal(err)
	}
	opts := executor.Options{Headless: true}
	p := Install(h, &opts)
	defer p.Close()
	x := executor.New(h, opts)
	prompt := func(id string) {
		t.Helper()
		if res, err := x.Prompt(context.Background(), id, "read", "run"); err != nil || res.Failure != "" {
			t.Fatalf("%v %+v", err, res)
		}
	}
	prompt(s.ID)
	st, _ := h.BranchState(s.Branch)
	f, err := h.Fork(s.ID, st.Head, harness.ForkOptions{Name: "f"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Workspace == ws || f.Settings["project"] != ws {
		t.Fatalf("the fork has no workspace copy of its own: %+v", f)
	}
	prompt(f.ID)
	if b, _ := os.ReadFile(mark); string(b) != "x\nx\n" {
		t.Fatalf("the trusted hook did not run in the project and its fork: %q", b)
	}
	write(t, filepath.Join(f.Workspace, ".exo", "settings.json"), string(settings[:len(settings)-1])+` `+"}")
	prompt(f.ID)
	if b, _ := os.ReadFile(mark); string(b) != "x\nx\n" {
		t.Fatalf("a changed hook ran in the fork: %q", b)
	}
}
