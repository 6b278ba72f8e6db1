package claude

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/extexec/exectest"
	"exo/harness/provider/providertest"
)

func TestScriptedModelServesClaudeThroughExo(t *testing.T) {
	f := newFixture(t)
	script, _ := filepath.Abs(filepath.Join("testdata", "scripted.yaml"))
	if _, err := f.h.RegisterModel(harness.ModelSpec{Name: "demo", Provider: "scripted", BaseURL: script}); err != nil {
		t.Fatal(err)
	}
	if err := f.h.SetDefaultModel("demo"); err != nil {
		t.Fatal(err)
	}
	x := f.executor(t, Options{})
	res, err := x.Prompt(context.Background(), f.s.ID, "write s.txt", "test")
	okResult(t, res, err)
	if b, err := os.ReadFile(filepath.Join(f.ws, "s.txt")); err != nil || string(b) != "via-scripted\n" {
		t.Fatalf("s.txt: %q %v", b, err)
	}
	evs := f.events(t, f.s.ID)
	comp := exectest.Payloads[harness.ModelCompleted](t, evs, harness.TypeModelCompleted)
	if len(comp) != 2 || comp[0].ToolCalls[0].Name != "bash" || comp[1].Text != "Written s.txt." || !strings.Contains(comp[0].Model, "scripted") {
		t.Fatalf("model.completed %+v\n%s", comp, exectest.Types(evs))
	}
	if len(f.srv.Requests()) != 0 {
		t.Fatal("the Anthropic server was called for a scripted model")
	}
}

func TestChatCompletionsModelServesClaudeThroughExo(t *testing.T) {
	f := newFixture(t)
	chat := providertest.NewScriptedChat(
		providertest.ChatReply{Text: "Checking.", ToolCalls: []providertest.ChatToolCall{{ID: "call_1", Name: "mcp__exo__bash", Args: `{"command":"echo chat > c.txt"}`}}},
		providertest.ChatReply{Text: "Done via chat."})
	t.Cleanup(chat.Close)
	if err := f.h.SetSecret("local-key", []byte(sealedKey+"-chat")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.h.RegisterModel(harness.ModelSpec{Name: "local", Provider: "openai-compatible", ModelID: "qwen", BaseURL: chat.BaseURL(),
		Secret: "local-key", ContextWindow: 32000}); err != nil {
		t.Fatal(err)
	}
	if err := f.h.SetDefaultModel("local"); err != nil {
		t.Fatal(err)
	}
	x := f.executor(t, Options{})
	res, err := x.Prompt(context.Background(), f.s.ID, "write c.txt", "test")
	okResult(t, res, err)
	if res.Response != "Done via chat." {
		t.Fatalf("response %q", res.Response)
	}
	if b, err := os.ReadFile(filepath.Join(f.ws, "c.txt")); err != nil || string(b) != "chat\n" {
		t.Fatalf("c.txt: %q %v", b, err)
	}
	reqs := chat.Requests()
	if len(reqs) != 2 || reqs[0].Header.Get("Authorization") != "Bearer "+sealedKey+"-chat" {
		t.Fatalf("%d chat requests, auth %q", len(reqs), reqs[0].Header.Get("Authorization"))
	}
	if !strings.Contains(string(reqs[1].Body), `"tool_call_id":"call_1"`) || !strings.Contains(string(reqs[1].Body), "mcp__exo__bash") {
		t.Fatalf("the second chat request lacks the tool result: %s", reqs[1].Body)
	}
}
