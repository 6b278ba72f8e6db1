package acp

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/modeltest"
	"exo/sandbox"
)

// lastPromptBody is the body of the newest model request holding text (not the title request).
func lastPromptBody(t *testing.T, f *fixture, text string) []byte {
	t.Helper()
	ms := f.srv.Messages()
	for i := len(ms) - 1; i >= 0; i-- {
		if bytes.Contains(ms[i].Body, []byte(text)) && !bytes.Contains(ms[i].Body, []byte("Write the title")) {
			return ms[i].Body
		}
	}
	t.Fatalf("no model request holds %q", text)
	return nil
}

func TestClaudeAdapterSessionLoadedAfterAnotherExecutor(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{Command: []string{claudeACP(t)}})
	res, err := x.Prompt(context.Background(), f.s.ID, "remember the word PAPAYA", "test")
	okResult(t, res, err)
	// exo's own executor runs a turn: the agent's session no longer holds the whole log.
	own := executor.New(f.h, executor.Options{Headless: true})
	res, err = own.Prompt(context.Background(), f.s.ID, "say hello", "test")
	okResult(t, res, err)
	res, err = x.Prompt(context.Background(), f.s.ID, "what word did I say?", "test")
	okResult(t, res, err)
	if !x.Session(f.s.ID).Proc.(*proc).loaded {
		t.Fatal("the agent's session was not loaded")
	}
	body := lastPromptBody(t, f, "what word did I say")
	for _, want := range []string{"PAPAYA", "I will remember it.", "[What happened in this session since you last worked in it", "Hello from the script."} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("the request after the load lacks %q:\n%s", want, body)
		}
	}
	if bytes.Contains(body, []byte("[The conversation so far")) || bytes.Count(body, []byte("remember the word PAPAYA")) != 1 {
		t.Errorf("the whole log was sent again:\n%s", body)
	}
	as := payloads[harness.AgentSession](t, f.events(t, f.s.ID), harness.TypeAgentSession)
	if len(as) != 1 || !as[0].Loaded || as[0].Since != 2 {
		t.Fatalf("agent.session %+v", as)
	}
}

func TestClaudeAdapterSessionLoadedAfterTheDaemonDied(t *testing.T) {
	bin := claudeACP(t)
	sc, err := modeltest.LoadScript(filepath.Join("testdata", "turns.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	opts := harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}}
	f := openFixture(t, home, sc, opts)
	x, err := New(f.h, Options{Command: []string{bin}, Exec: executor.Options{Headless: true}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := x.Prompt(context.Background(), f.s.ID, "remember the word PAPAYA", "test")
	okResult(t, res, err)
	// The daemon dies: nothing is stopped in order; the agent is killed, the store closed.
	pr := x.Session(f.s.ID).Proc.(*proc)
	syscall.Kill(pr.Pid(), syscall.SIGKILL)
	<-pr.p.Done()
	x.Close()
	if err := f.h.Close(); err != nil {
		t.Fatal(err)
	}
	h, err := harness.Open(home, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	x2, err := New(h, Options{Command: []string{bin}, Exec: executor.Options{Headless: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x2.Close() })
	res, err = x2.Prompt(context.Background(), f.s.ID, "what word did I say?", "test")
	okResult(t, res, err)
	if !x2.Session(f.s.ID).Proc.(*proc).loaded {
		t.Fatal("the restarted daemon's agent did not load the session")
	}
	body := lastPromptBody(t, f, "what word did I say")
	if !bytes.Contains(body, []byte("PAPAYA")) || bytes.Contains(body, []byte("[The conversation so far")) || bytes.Contains(body, []byte("[What happened")) {
		t.Fatalf("the loaded session's request:\n%s", body)
	}
}
