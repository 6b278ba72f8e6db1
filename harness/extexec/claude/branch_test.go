package claude

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"exo/harness"
)

// seqOf returns the seq of the last event of type typ.
func seqOf(t *testing.T, f *fixture, id, typ string) uint64 {
	t.Helper()
	var seq uint64
	for _, e := range f.events(t, id) {
		if e.Type == typ {
			seq = e.Seq
		}
	}
	if seq == 0 {
		t.Fatalf("no %s", typ)
	}
	return seq
}

func TestForkKnowsTheConversationUpToTheEventOnly(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{})
	res, err := x.Prompt(context.Background(), f.s.ID, "remember the word PAPAYA", "test")
	okResult(t, res, err)
	at := seqOf(t, f, f.s.ID, harness.TypeExecutorResult)
	res, err = x.Prompt(context.Background(), f.s.ID, "remember the word MANGO", "test")
	okResult(t, res, err)
	child, err := f.h.Fork(f.s.ID, at, harness.ForkOptions{Name: "child"})
	if err != nil {
		t.Fatal(err)
	}
	res, err = x.Prompt(context.Background(), child.ID, "what word did I say? (fork)", "test")
	okResult(t, res, err)
	body := lastBody(t, f)
	if !bytes.Contains(body, []byte("PAPAYA")) || !bytes.Contains(body, []byte("I will remember it.")) || bytes.Contains(body, []byte("MANGO")) {
		t.Fatalf("the fork's request does not hold exactly the history up to event %d:\n%s", at, body)
	}
	// The parent carries on with its own process and its whole history.
	res, err = x.Prompt(context.Background(), f.s.ID, "what word did I say? (parent)", "test")
	okResult(t, res, err)
	body = lastBody(t, f)
	if !bytes.Contains(body, []byte("PAPAYA")) || !bytes.Contains(body, []byte("MANGO")) || bytes.Contains(body, []byte("(fork)")) {
		t.Fatalf("the parent's request lost its history or saw the fork's:\n%s", body)
	}
}

func TestRewindRemovesTheFileAndTheConversation(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{})
	res, err := x.Prompt(context.Background(), f.s.ID, "remember the word PAPAYA", "test")
	okResult(t, res, err)
	at := seqOf(t, f, f.s.ID, harness.TypeExecutorResult)
	res, err = x.Prompt(context.Background(), f.s.ID, "make a file", "test")
	okResult(t, res, err)
	if _, err := os.Stat(filepath.Join(f.ws, "x.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.h.Rewind(f.s.ID, at); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "x.txt")); !os.IsNotExist(err) {
		t.Fatalf("rewind left x.txt: %v", err)
	}
	res, err = x.Prompt(context.Background(), f.s.ID, "what word did I say?", "test")
	okResult(t, res, err)
	body := lastBody(t, f)
	if !bytes.Contains(body, []byte("PAPAYA")) || bytes.Contains(body, []byte("make a file")) || bytes.Contains(body, []byte("x.txt")) {
		t.Fatalf("after the rewind claude saw:\n%s", body)
	}
	if !bytes.Contains(body, []byte("restored")) {
		t.Fatalf("claude was not told the files were restored:\n%s", body)
	}
}

// lastBody is the messages of the last request the provider received.
func lastBody(t *testing.T, f *fixture) []byte {
	t.Helper()
	msgs := f.srv.Messages()
	if len(msgs) == 0 {
		t.Fatal("no requests")
	}
	b := msgs[len(msgs)-1].Body
	if i := bytes.Index(b, []byte(`"messages":`)); i >= 0 {
		b = b[i:]
	}
	if i := bytes.Index(b, []byte(`"system":`)); i >= 0 {
		b = b[:i]
	}
	return b
}
