package plugins

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/provider/providertest"
	"exo/sandbox"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

func write(t *testing.T, path, text string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A custom command typed as "/greet …" is expanded (arguments, model from its frontmatter);
// skills are listed in the system prompt by name and description, and their bodies reach the
// model only through the skill tool, which stays inside the skill's folder.
func TestCustomCommandAndSkillsThroughTheModel(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir()) // no ~/.claude of the machine's user
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	srv := providertest.NewScriptedChat(
		providertest.ChatReply{ToolCalls: []providertest.ChatToolCall{{ID: "c1", Name: "skill", Args: `{"name":"deploy"}`}}},
		providertest.ChatReply{ToolCalls: []providertest.ChatToolCall{{ID: "c2", Name: "skill", Args: `{"name":"deploy","file":"checklist.md"}`}}},
		providertest.ChatReply{ToolCalls: []providertest.ChatToolCall{{ID: "c3", Name: "skill", Args: `{"name":"deploy","file":"../../../../../../etc/hostname"}`}}},
		providertest.ChatReply{ToolCalls: []providertest.ChatToolCall{{ID: "c4", Name: "skill", Args: `{"name":"deploy","file":"escape/hostname"}`}}},
		providertest.ChatReply{Text: "done"},
	)
	t.Cleanup(srv.Close)
	for _, m := range []harness.ModelSpec{
		{Name: "main", Provider: "openai-compatible", ModelID: "main-id", BaseURL: srv.BaseURL()},
		{Name: "second", Provider: "openai-compatible", ModelID: "second-id", BaseURL: srv.BaseURL()},
	} {
		if _, err := h.RegisterModel(m); err != nil {
			t.Fatal(err)
		}
	}
	ws := t.TempDir()
	write(t, filepath.Join(ws, ".exo/commands/greet.md"), "---\ndescription: Greet people\nargument-hint: NAME OTHER\nmodel: second\n---\nSay hello to $1 and $2 (all: $ARGUMENTS).\n")
	write(t, filepath.Join(ws, ".exo/skills/deploy/SKILL.md"), "---\nname: deploy\ndescription: Deploys the service to staging safely.\n---\n# Deploy\nUNIQUE-DEPLOY-STEPS: build, push, verify.\n")
	write(t, filepath.Join(ws, ".exo/skills/deploy/checklist.md"), "CHECKLIST-ITEM-42\n")
	os.Symlink("/etc", filepath.Join(ws, ".exo/skills/deploy/escape"))
	write(t, filepath.Join(ws, ".claude/skills/review/SKILL.md"), "---\nname: review\ndescription: Reviews a pull request.\n---\nLook at the diff.\n")
	s, err := h.NewSession(harness.NewSessionOptions{Name: "t", Workspace: ws, Settings: map[string]string{"model": "main"}})
	if err != nil {
		t.Fatal(err)
	}
	opts := executor.Options{Headless: true}
	p := Install(h, &opts)
	defer p.Close()
	res, err := executor.New(h, opts).Prompt(context.Background(), s.ID, `/greet Alice "Bob Smith"`, "run")
	if err != nil || res.Failure != "" {
		t.Fatalf("%v %+v", err, res)
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model requests", len(reqs))
	}
	first := string(reqs[0].Body)
	for _, want := range []string{`"model":"second-id"`, "# Skills", "deploy: Deploys the service to staging safely.", "review: Reviews a pull request.",
		`"name":"skill"`, "Say hello to Alice and Bob Smith (all: Alice \\\"Bob Smith\\\")."} {
		if !strings.Contains(first, want) {
			t.Errorf("the first request lacks %s", want)
		}
	}
	if strings.Contains(first, "UNIQUE-DEPLOY-STEPS") || strings.Contains(first, "/greet") {
		t.Error("the skill body or the raw command reached the model before it was asked for")
	}
	if !strings.Contains(string(reqs[1].Body), "UNIQUE-DEPLOY-STEPS") || !strings.Contains(string(reqs[1].Body), "checklist.md") {
		t.Error("the skill tool did not return the body and its files")
	}
	if !strings.Contains(string(reqs[2].Body), "CHECKLIST-ITEM-42") {
		t.Error("the skill's file was not read")
	}
	if !strings.Contains(string(reqs[3].Body), "no file ../../../../../../etc/hostname in the skill") {
		t.Errorf("a path out of the skill's folder was not refused: %s", reqs[3].Body)
	}
	host, _ := os.ReadFile("/etc/hostname")
	if !strings.Contains(string(reqs[4].Body), "escape/hostname goes through a symbolic link") ||
		(len(strings.TrimSpace(string(host))) > 3 && strings.Contains(string(reqs[4].Body), strings.TrimSpace(string(host)))) {
		t.Errorf("a symlink out of the skill's folder was followed: %s", reqs[4].Body)
	}
	evs, _ := h.Events(s.ID, 0, 0)
	for _, e := range evs {
		if e.Type == harness.TypeInvocationReceived && !strings.Contains(string(e.Data), `"source":"command /greet"`) {
			t.Errorf("prompt recorded as %s", e.Data)
		}
	}
	// The next plain prompt is back on the session's own model.
	srv.SetReplies(providertest.ChatReply{Text: "ok"})
	if _, err := executor.New(h, opts).Prompt(context.Background(), s.ID, "/notacommand stays as typed", "run"); err != nil {
		t.Fatal(err)
	}
	last := string(srv.Requests()[5].Body)
	if !strings.Contains(last, `"model":"main-id"`) || !strings.Contains(last, "/notacommand stays as typed") {
		t.Errorf("plain prompt request: %s", last)
	}
}
