package acp

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/exectest"
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
	as := exectest.Payloads[harness.AgentSession](t, f.events(t, f.s.ID), harness.TypeAgentSession)
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

// TestSavedSessionFileFollowsNoLink: the saved session note lives in the agent's state folder,
// where the agent may write: a link it put at the note's temporary name is not written through
// (before, exo's os.WriteFile overwrote the link's target, any file of the user's, with the
// note), and a named pipe in place of the note does not hang the next start (before, exo's
// os.ReadFile blocked on it for good); the next agent starts afresh from exo's log.
func TestSavedSessionFileFollowsNoLink(t *testing.T) {
	f := newFixture(t)
	bin := claudeACP(t)
	x := f.executor(t, Options{Command: []string{bin}})
	res, err := x.Prompt(context.Background(), f.s.ID, "remember the word PAPAYA", "test")
	okResult(t, res, err)
	root := x.Session(f.s.ID).Dirs.Root
	victim := filepath.Join(t.TempDir(), "profile")
	if err := os.WriteFile(victim, []byte("the user's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(root, savedName+".tmp")); err != nil {
		t.Fatal(err)
	}
	res, err = x.Prompt(context.Background(), f.s.ID, "say hello", "test")
	okResult(t, res, err)
	x.Close() // waits for the note's write
	if b, _ := os.ReadFile(victim); string(b) != "the user's\n" {
		t.Fatalf("the note was written through a planted link: %q", b)
	}
	saved := filepath.Join(root, savedName)
	if err := os.Remove(saved); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(saved, 0o600); err != nil {
		t.Fatal(err)
	}
	x2 := f.executor(t, Options{Command: []string{bin}})
	done := make(chan error, 1)
	go func() {
		res, err := x2.Prompt(context.Background(), f.s.ID, "what word did I say?", "test")
		if err == nil && res.Failure != "" {
			err = errors.New(res.Failure)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Minute):
		t.Fatal("the start hangs on a named pipe in place of the saved session")
	}
	if x2.Session(f.s.ID).Proc.(*proc).loaded {
		t.Fatal("a session was loaded from a named pipe")
	}
	if body := lastPromptBody(t, f, "what word did I say"); !bytes.Contains(body, []byte("PAPAYA")) {
		t.Fatalf("the fresh agent was not given the log:\n%s", body)
	}
}
