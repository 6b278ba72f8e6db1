package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// heldStream is a Chat Completions endpoint that streams reasoning and the start of an answer as
// DeepSeek does (reasoning_content, then content), then holds the stream until released.
type heldStream struct {
	*httptest.Server
	release chan struct{}
	once    sync.Once
	// sent is closed once the first request's start of the answer is flushed.
	sent     chan struct{}
	sentOnce sync.Once
}

func newHeldStream() *heldStream {
	h := &heldStream{release: make(chan struct{}), sent: make(chan struct{})}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta string) {
			fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"held\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":null}]}\n\n", delta)
			w.(http.Flusher).Flush()
		}
		chunk(`{"role":"assistant","content":null,"reasoning_content":"pondering "}`)
		chunk(`{"reasoning_content":"the fox"}`)
		chunk(`{"content":"The quick "}`)
		chunk(`{"content":"brown fox"}`)
		h.sentOnce.Do(func() { close(h.sent) })
		select {
		case <-h.release:
		case <-r.Context().Done():
			return
		case <-time.After(30 * time.Second):
		}
		chunk(`{"content":" jumps."}`)
		fmt.Fprint(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"held\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":7,\"total_tokens\":19}}\n\ndata: [DONE]\n\n")
	}))
	return h
}

// Release lets the held stream finish.
func (h *heldStream) Release() { h.once.Do(func() { close(h.release) }) }

// TestTailStreamsTheAnswerAndEndsWhenIdle: exo tail prints an answer's reasoning and text while
// the model streams them (it showed nothing until the answer was committed), from the answer's
// start although it attaches after the model has sent them, and --until-idle returns once the
// turn ends (it never ended) — at once when no turn runs.
func TestTailStreamsTheAnswerAndEndsWhenIdle(t *testing.T) {
	t.Parallel()
	srv := newHeldStream()
	defer srv.Close()
	defer srv.Release()
	home, ws := t.TempDir(), t.TempDir()
	mustRunIn(t, home, ws, "model", "register", "held", "--provider", "openai-compatible", "--base-url", srv.URL+"/v1")
	mustRunIn(t, home, ws, "new", "--name", "streamer")
	mustRunIn(t, home, ws, "run", "--session", "streamer", "--detach", "tell me about the fox")
	select { // exo tail attaches after the model has sent the start of its answer
	case <-srv.sent:
	case <-time.After(60 * time.Second):
		t.Fatal("the model was never asked")
	}

	cmd := exec.Command(exoBin, "tail", "streamer", "--until-idle")
	cmd.Dir, cmd.Env = ws, append(os.Environ(), "EXO_HOME="+home)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var got strings.Builder
	seen := make(chan struct{})
	read := make(chan struct{})
	go func() {
		defer close(read)
		r := bufio.NewReader(out)
		buf := make([]byte, 4096)
		once := sync.Once{}
		for {
			n, err := r.Read(buf)
			got.Write(buf[:n]) // read below only after read closes, or through seen
			if s := got.String(); strings.Contains(s, "thinking: pondering the fox") && strings.Contains(s, "The quick brown fox") {
				once.Do(func() { close(seen) })
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-seen:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-read
		cmd.Wait() // stderr is copied until then
		t.Fatalf("the streaming answer did not reach exo tail while the model streamed:\n%s\n%s", got.String(), errb.String())
	}
	srv.Release()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		<-read
		if err != nil {
			t.Fatalf("exo tail --until-idle: %v\n%s", err, errb.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-read
		t.Fatalf("exo tail --until-idle did not return after the turn ended:\n%s", got.String())
	}
	text := got.String()
	if !strings.Contains(text, " jumps.") || !strings.Contains(text, "model.completed") {
		t.Fatalf("the end of the answer is missing from the tail:\n%s", text)
	}
	// Nothing runs now: --until-idle prints the last events and returns at once.
	start := time.Now()
	idle, errs, code := exoEnv(t, home, ws, nil, "tail", "streamer", "--until-idle", "-n", "3")
	if code != 0 || !strings.Contains(idle, "model.completed") || time.Since(start) > 10*time.Second {
		t.Fatalf("tail --until-idle of an idle session: exit %d after %v:\n%s%s", code, time.Since(start), idle, errs)
	}
}
