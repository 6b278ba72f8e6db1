package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"exo/harness/provider/providertest"
)

// TestQuitStopCancelsTheTurn quits the app while its turn waits on the model and answers s: the
// app cancels the turn before it leaves, and the log records the cancellation.
func TestQuitStopCancelsTheTurn(t *testing.T) {
	t.Parallel()
	srv := providertest.NewScriptedChat(providertest.ChatReply{Hang: true})
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	exoEnv(t, home, ws, nil, "model", "register", "slow", "--provider", "openai-compatible", "--base-url", srv.BaseURL())
	id := strings.TrimSpace(mustRunIn(t, home, ws, "new", "--name", "stopper"))
	scr := startTmux(t, 120, 36, "cd "+ws+" && EXO_HOME="+home+" "+exoBin+" attach stopper --theme dark; sleep 60")
	scr.waitFor("the session loaded", contains(" stopper │"))
	scr.keys("take your time", "Enter")
	waitRequests(t, srv, 1, "the turn")
	scr.keys("C-q")
	scr.waitFor("the quit question", contains("Leave exo?"))
	scr.keys("s")
	scr.waitFor("the app gone", func(s string) bool { return !strings.Contains(s, "ask, /command or !shell") })
	// The app left only after the daemon recorded the end of the turn.
	log := mustRunIn(t, home, ws, "log", id)
	if !strings.Contains(log, "turn.cancelled") {
		t.Fatalf("the stopped turn is not recorded as cancelled:\n%s", log)
	}
	if out := mustRunIn(t, home, ws, "sessions", "--json"); strings.Contains(out, `"running": true`) {
		t.Fatalf("a turn still runs after stop:\n%s", out)
	}
}

// gatedChat is a Chat Completions endpoint whose one answer streams in two parts, each sent when
// the test opens its gate: what an app shows between the two is live streaming.
type gatedChat struct {
	*httptest.Server
	gates    [2]chan struct{}
	once     [2]sync.Once
	mu       sync.Mutex
	requests int
}

// newGatedChat starts the server; parts are the two pieces of the answer.
func newGatedChat(parts [2]string) *gatedChat {
	g := &gatedChat{gates: [2]chan struct{}{make(chan struct{}), make(chan struct{})}}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.requests++
		g.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta map[string]any, finish any) {
			b, _ := json.Marshal(map[string]any{"id": "g1", "object": "chat.completion.chunk", "created": 1, "model": "gated",
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
			fmt.Fprintf(w, "data: %s\n\n", b)
			w.(http.Flusher).Flush()
		}
		chunk(map[string]any{"role": "assistant", "content": ""}, nil)
		for i, part := range parts {
			select {
			case <-g.gates[i]:
			case <-r.Context().Done():
				return
			}
			chunk(map[string]any{"content": part}, nil)
		}
		chunk(map[string]any{}, "stop")
		fmt.Fprintf(w, "data: [DONE]\n\n")
	}))
	return g
}

// open lets part i go out.
func (g *gatedChat) open(i int) { g.once[i].Do(func() { close(g.gates[i]) }) }

// seen returns how many requests arrived.
func (g *gatedChat) seen() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.requests
}

// TestReopenShowsKeptTurnLive quits the app with k while the model is about to answer, opens
// the app again on the session, and checks the kept turn shows as running there and its answer
// streams onto the new app's screen live: the first part before the model has sent the rest.
func TestReopenShowsKeptTurnLive(t *testing.T) {
	t.Parallel()
	srv := newGatedChat([2]string{"first half streamed live, ", "second half at the end"})
	defer srv.Close()
	defer srv.open(0)
	defer srv.open(1)
	home, ws := t.TempDir(), t.TempDir()
	exoEnv(t, home, ws, nil, "model", "register", "gated", "--provider", "openai-compatible", "--base-url", srv.URL+"/v1")
	mustRunIn(t, home, ws, "new", "--name", "keeper")
	a := startTmux(t, 120, 36, "cd "+ws+" && EXO_HOME="+home+" "+exoBin+" attach keeper --theme dark; sleep 60")
	a.waitFor("the session loaded", contains(" keeper │"))
	a.keys("answer in two halves", "Enter")
	deadline := time.Now().Add(30 * time.Second)
	for srv.seen() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the model was never called; screen:\n%s", a.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
	a.keys("C-q")
	a.waitFor("the quit question", contains("Leave exo?"))
	a.keys("k")
	a.waitFor("the first app gone", func(s string) bool { return !strings.Contains(s, "ask, /command or !shell") })

	b := startTmux(t, 120, 36, "cd "+ws+" && EXO_HOME="+home+" "+exoBin+" attach keeper --theme dark; sleep 60")
	b.waitFor("the reopened app with the kept turn's prompt", func(s string) bool {
		return strings.Contains(s, " keeper │") && strings.Contains(s, "answer in two halves")
	})
	b.waitFor("the kept turn shown running (the status bar's spinner)", func(s string) bool {
		return strings.ContainsAny(s, "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏") && strings.Contains(s, " keeper │")
	})
	srv.open(0)
	scr := b.waitFor("the first half on the reopened app", contains("first half streamed live"))
	if strings.Contains(scr, "second half at the end") {
		t.Fatal("the second half showed before the model sent it")
	}
	srv.open(1)
	b.waitFor("the second half", contains("second half at the end"))
	b.keys("C-q")
}
