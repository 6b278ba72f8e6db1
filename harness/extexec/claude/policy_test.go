package claude

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/exectest"
	"exo/harness/governance"
)

func TestSealedKeyNeverReachesClaude(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", sealedKey) // even exo's own environment holding it must not leak
	t.Setenv("EXO_TEST_TOKEN", sealedKey)
	f := newFixture(t)
	x := f.executor(t, Options{})
	res, err := x.Prompt(context.Background(), f.s.ID, "show the environment", "test")
	okResult(t, res, err)
	sess := x.Session(f.s.ID)
	if sess == nil || !sess.Proc.Alive() {
		t.Fatal("claude is not running between turns")
	}
	environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid(x, f.s.ID)))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(environ, []byte(sealedKey)) {
		t.Fatal("the sealed key is in claude's environment")
	}
	for _, kv := range bytes.Split(environ, []byte{0}) {
		if bytes.HasPrefix(kv, []byte("IS_SANDBOX=")) || bytes.HasPrefix(kv, []byte("EXO_")) {
			t.Fatalf("claude's environment has %s", kv)
		}
	}
	if !bytes.Contains(environ, []byte("ANTHROPIC_API_KEY="+sess.Endpoint.Token())) || !bytes.Contains(environ, []byte("ANTHROPIC_BASE_URL=http://127.0.0.1:")) {
		t.Fatalf("claude's environment lacks the session token or endpoint: %q", environ)
	}
	noKeyIn(t, sess.Dirs.Root)
	noKeyIn(t, f.ws)
	reqs := f.srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no requests")
	}
	for i, r := range reqs {
		if bytes.Contains(r.Body, []byte(sealedKey)) {
			t.Fatalf("request %d body holds the sealed key", i)
		}
		if bytes.Contains(r.Body, []byte(sess.Endpoint.Token())) || r.Header.Get("X-Api-Key") != sealedKey {
			t.Fatalf("request %d: the session token went upstream or the key did not", i)
		}
	}
	for _, e := range f.events(t, f.s.ID) {
		if bytes.Contains(e.Data, []byte(sealedKey)) {
			t.Fatalf("event %d (%s) holds the sealed key", e.Seq, e.Type)
		}
	}
}

func TestWrongTokenIsRefused(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{})
	res, err := x.Prompt(context.Background(), f.s.ID, "say hello", "test")
	okResult(t, res, err)
	ep := x.Session(f.s.ID).Endpoint
	for _, tok := range []string{"", sealedKey, "exo-guess"} {
		req, _ := newRequest(ep.URL()+"/v1/messages", tok)
		res, err := httpClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 401 {
			t.Fatalf("token %q: status %d", tok, res.StatusCode)
		}
	}
	if n := len(f.srv.Messages()); n != 1 {
		t.Fatalf("%d calls reached the provider", n)
	}
}

func TestWriteOutsideScopeRefused(t *testing.T) {
	f := newFixture(t)
	if _, err := governance.SetScope(f.h, f.s.ID, governance.Scope{Allow: []string{"docs/**"}}, harness.ActorUser, "test"); err != nil {
		t.Fatal(err)
	}
	x := f.executor(t, Options{Exec: executor.Options{CheckWrite: governance.CheckWriteHook(f.h)}})
	res, err := x.Prompt(context.Background(), f.s.ID, "write outside the scope", "test")
	okResult(t, res, err)
	if _, err := os.Stat(filepath.Join(f.ws, "docs", "notes.md")); err != nil {
		t.Fatalf("the in-scope write did not happen: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "secret", "plan.md")); !os.IsNotExist(err) {
		t.Fatalf("the out-of-scope write happened: %v", err)
	}
	tc := exectest.Payloads[harness.ToolCompleted](t, f.events(t, f.s.ID), harness.TypeToolCompleted)
	if len(tc) != 2 || tc[0].IsError || !tc[1].IsError || !strings.Contains(tc[1].Output, "scope") {
		t.Fatalf("tool results %+v %+v", tc[0], tc[1])
	}
	msgs := f.srv.Messages()
	last := msgs[len(msgs)-1].Body
	if !bytes.Contains(last, []byte("secret/plan.md")) || !bytes.Contains(last, []byte(`"is_error":true`)) {
		t.Fatalf("claude did not get the refusal: %s", tail(last, 600))
	}
}

func TestApprovalAnsweredLikeTheApp(t *testing.T) {
	for _, decision := range []string{executor.DecisionOnce, executor.DecisionDeny} {
		t.Run(decision, func(t *testing.T) {
			f := newFixture(t)
			x := f.executor(t, Options{Exec: executor.Options{Approvals: map[string]string{"bash": "ask"}, ApprovalTimeout: time.Minute}})
			answered := answerApprovals(t, f.h, f.s.ID, decision)
			res, err := x.Prompt(context.Background(), f.s.ID, "make a file", "test")
			okResult(t, res, err)
			if <-answered != "bash" {
				t.Fatal("no approval was asked for bash")
			}
			_, statErr := os.Stat(filepath.Join(f.ws, "x.txt"))
			evs := f.events(t, f.s.ID)
			tc := exectest.Payloads[harness.ToolCompleted](t, evs, harness.TypeToolCompleted)[0]
			if decision == executor.DecisionDeny {
				if statErr == nil || !tc.IsError || !strings.Contains(tc.Output, "denied") {
					t.Fatalf("denied call ran: %v %+v", statErr, tc)
				}
				return
			}
			if statErr != nil || tc.IsError {
				t.Fatalf("approved call did not run: %v %+v", statErr, tc)
			}
			if !strings.Contains(exectest.Types(evs), "tool.started approval.requested approval.resolved") {
				t.Fatalf("events %s", exectest.Types(evs))
			}
		})
	}
}

// answerApprovals answers the first approval.requested of a session as the app does (an
// approval.resolved by the user) and reports the tool it was for.
func answerApprovals(t *testing.T, h *harness.Harness, sessionID, decision string) <-chan string {
	ch, stop := h.Subscribe(256)
	out := make(chan string, 1)
	go func() {
		defer stop()
		for n := range ch {
			for _, e := range n.Events {
				if e.Type != harness.TypeApprovalRequested || n.Session != sessionID {
					continue
				}
				p, _ := harness.Decode(e)
				r := p.(*harness.ApprovalRequested)
				if _, err := h.Append(sessionID, harness.MustRecord(harness.TypeApprovalResolved, harness.ActorUser,
					harness.ApprovalResolved{CallID: r.CallID, Decision: decision})); err != nil {
					t.Error(err)
				}
				out <- r.Tool
				return
			}
		}
	}()
	return out
}

// tail returns the last n bytes of b.
func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
