package executor_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/governance"
	"exo/harness/provider/providertest"
	"exo/sandbox"
)

// governed opens a harness in home with a Chat Completions model playing replies and an
// executor with governance installed.
func governed(t *testing.T, home string, replies ...providertest.ChatReply) (*harness.Harness, *harness.Session, *executor.Executor, *providertest.ScriptedChat) {
	t.Helper()
	h, err := harness.Open(home, harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	srv := providertest.NewScriptedChat(replies...)
	t.Cleanup(srv.Close)
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "chat", Provider: "openai-compatible", ModelID: "local", BaseURL: srv.BaseURL(), ContextWindow: 32000}); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("# sample\n"), 0o644)
	s, err := h.NewSession(harness.NewSessionOptions{Name: "lead", Workspace: ws, Settings: map[string]string{"model": "chat"}})
	if err != nil {
		t.Fatal(err)
	}
	opts := executor.Options{Headless: true}
	if err := governance.Install(h, &opts, ws, false); err != nil {
		t.Fatal(err)
	}
	return h, s, executor.New(h, opts), srv
}

func call(id, name, args string) []providertest.ChatToolCall {
	return []providertest.ChatToolCall{{ID: id, Name: name, Args: args}}
}

func TestSubagentRoundTripWithItsScope(t *testing.T) {
	h, s, x, srv := governed(t, t.TempDir(),
		providertest.ChatReply{ToolCalls: call("c1", "spawn_agent", `{"task":"write the notes under sub/","scope":{"allow":["sub/**"]},"wait":true}`)},
		providertest.ChatReply{ToolCalls: call("k1", "write_file", `{"path":"sub/ok.txt","content":"inside"}`)},
		providertest.ChatReply{ToolCalls: call("k2", "write_file", `{"path":"other.txt","content":"outside"}`)},
		providertest.ChatReply{Text: "child report: wrote sub/ok.txt; other.txt was refused by my scope"},
		providertest.ChatReply{Text: "The subagent wrote sub/ok.txt."},
	)
	res, err := x.Prompt(context.Background(), s.ID, "delegate the notes", "test")
	if err != nil || res.Failure != "" || res.Response != "The subagent wrote sub/ok.txt." {
		t.Fatalf("%+v %v", res, err)
	}
	x.WaitAgents()
	// The parent's log: spawned, then the report (delivered to the waiting call).
	var spawned *harness.SubagentSpawned
	var done *harness.SubagentCompleted
	var toolOut string
	evs, _ := h.Events(s.ID, 0, 0)
	for _, e := range evs {
		p, _ := harness.Decode(e)
		switch p := p.(type) {
		case *harness.SubagentSpawned:
			spawned = p
		case *harness.SubagentCompleted:
			done = p
		case *harness.ToolCompleted:
			if p.CallID == "c1" {
				toolOut = p.Output
			}
		}
	}
	if spawned == nil || done == nil || !done.Delivered || !strings.Contains(done.Response, "child report") || !strings.Contains(toolOut, "child report") {
		t.Fatalf("spawned %+v, completed %+v, tool output %q", spawned, done, toolOut)
	}
	child, err := h.Session(spawned.Session)
	if err != nil || child.Parent != s.ID || child.Settings[harness.SettingDepth] != "1" || child.Workspace == s.Workspace {
		t.Fatalf("child %+v %v", child, err)
	}
	// The scope held: the file inside it was written, the one outside refused.
	if b, err := os.ReadFile(filepath.Join(child.Workspace, "sub", "ok.txt")); err != nil || string(b) != "inside" {
		t.Fatalf("sub/ok.txt: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(child.Workspace, "other.txt")); !os.IsNotExist(err) {
		t.Fatalf("other.txt was written outside the subagent's scope: %v", err)
	}
	cevs, _ := h.Events(child.ID, 0, 0)
	refused := false
	for _, e := range cevs {
		if p, _ := harness.Decode(e); p != nil {
			if tc, ok := p.(*harness.ToolCompleted); ok && tc.CallID == "k2" && tc.IsError {
				refused = true
			}
		}
	}
	if !refused {
		t.Fatal("the out-of-scope write was not refused")
	}
	// The child's prompt started afresh: its first request holds only its task.
	reqs := srv.Requests()
	if body := string(reqs[1].Body); strings.Contains(body, "delegate the notes") || !strings.Contains(body, "write the notes under sub/") {
		t.Fatalf("the child's first request: %s", body)
	}
}

func TestSubagentCannotWidenItsParentsScope(t *testing.T) {
	h, s, x, _ := governed(t, t.TempDir())
	if _, err := governance.SetScope(h, s.ID, governance.Scope{Allow: []string{"src/**"}}, harness.ActorUser, "test"); err != nil {
		t.Fatal(err)
	}
	_, err := x.Spawn(executor.SpawnRequest{Parent: s.ID, Task: "everything", Allow: []string{"**"}})
	if !errors.Is(err, governance.ErrWidening) {
		t.Fatalf("widening scope: %v", err)
	}
}

func TestSubagentDepthIsLimited(t *testing.T) {
	h, s, _, _ := governed(t, t.TempDir())
	x := executor.New(h, executor.Options{Headless: true, MaxDepth: 1})
	h.UpdateSession(s.ID, func(s *harness.Session) error { s.Settings[harness.SettingDepth] = "1"; return nil })
	if _, err := x.Spawn(executor.SpawnRequest{Parent: s.ID, Task: "deeper"}); !errors.Is(err, executor.ErrDepth) {
		t.Fatalf("spawn past the depth limit: %v", err)
	}
}

func TestStoppedSubagentReportsToItsParent(t *testing.T) {
	h, s, x, srv := governed(t, t.TempDir(), providertest.ChatReply{Hang: true})
	defer srv.Release()
	handle, err := x.Spawn(executor.SpawnRequest{Parent: s.ID, Task: "take forever"})
	if err != nil {
		t.Fatal(err)
	}
	for len(srv.Requests()) == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	x.StopAgents()
	evs, _ := h.Events(s.ID, 0, 0)
	p, _ := harness.Decode(evs[len(evs)-1])
	done, ok := p.(*harness.SubagentCompleted)
	if !ok || done.Handle != handle || done.Delivered || !strings.Contains(done.Failure, "cancelled") {
		t.Fatalf("last parent event %s %+v", evs[len(evs)-1].Type, p)
	}
	v, _ := x.ViewOf(s.Branch, "local")
	if last := v.Messages[len(v.Messages)-1]; !strings.Contains(last.Text, "[subagent "+handle) {
		t.Fatalf("the report is not in the parent's prompt: %q", last.Text)
	}
}
