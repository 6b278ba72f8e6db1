package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"exo/harness/provider/providertest"
)

// shortIdle makes the daemons a test starts exit after one second with no clients and no work.
var shortIdle = []string{"EXO_DAEMON_IDLE=1s"}

// theDaemon returns the pid of the one daemon serving home.
func theDaemon(t *testing.T, home string) int {
	t.Helper()
	pids := daemonPids(t, home)
	if len(pids) != 1 {
		t.Fatalf("want one daemon for %s, found %v", home, pids)
	}
	return pids[0]
}

// staysUp checks that the daemon pid keeps serving home for d with no client connected.
func staysUp(t *testing.T, home string, pid int, d time.Duration, what string) {
	t.Helper()
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if !slices.Contains(daemonPids(t, home), pid) {
			t.Fatalf("the daemon (pid %d) exited while %s", pid, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitExit waits until no daemon serves home (it went idle), failing after 60 s.
func waitExit(t *testing.T, home, after string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for len(daemonPids(t, home)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the daemon did not exit when idle after %s", after)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitRequests waits until a scripted model has received n requests.
func waitRequests(t *testing.T, srv *providertest.ScriptedChat, n int, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for len(srv.Requests()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%s: the model got %d requests, want %d", what, len(srv.Requests()), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// routeChat is a Chat Completions endpoint that sends requests whose body contains match to
// yes and the others to no (a subagent's requests carry the subagent note of its prompt).
func routeChat(match string, yes, no *providertest.ScriptedChat) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		to := no
		if bytes.Contains(body, []byte(match)) {
			to = yes
		}
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, to.URL+r.URL.Path, bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
}

// TestWorkKeepsDaemonUp: a daemon whose idle time is one second stays up, with no client
// connected, for as long as a turn runs, a background task runs or a background subagent works
// (the subagent case was cut by the idle exit before); once the work ends it exits by itself,
// and the work's end is in the log.
func TestWorkKeepsDaemonUp(t *testing.T) {
	t.Parallel()
	hold := 3 * time.Second // three idle times
	t.Run("turn", func(t *testing.T) {
		srv := providertest.NewScriptedChat(providertest.ChatReply{Hang: true})
		defer srv.Close()
		home, ws := t.TempDir(), t.TempDir()
		exoEnv(t, home, ws, shortIdle, "model", "register", "slow", "--provider", "openai-compatible", "--base-url", srv.BaseURL())
		out, errs, code := exoEnv(t, home, ws, shortIdle, "run", "--detach", "take your time")
		if code != 0 {
			t.Fatal(errs)
		}
		waitRequests(t, srv, 1, "the turn")
		staysUp(t, home, theDaemon(t, home), hold, "a turn ran")
		srv.SetReplies(providertest.ChatReply{Text: "done at last"})
		srv.Release()
		waitExit(t, home, "the turn ended")
		if log, _, _ := exoEnv(t, home, ws, nil, "log", strings.TrimSpace(out)); !strings.Contains(log, "done at last") {
			t.Fatalf("the turn's end is not in the log:\n%s", log)
		}
	})
	t.Run("task", func(t *testing.T) {
		home, ws := t.TempDir(), t.TempDir()
		exoEnv(t, home, ws, shortIdle, "new", "--name", "bg")
		id, errs, code := exoEnv(t, home, ws, shortIdle, "exec", "bg", "--background", "--", "sleep 5; echo slept")
		if code != 0 {
			t.Fatal(errs)
		}
		staysUp(t, home, theDaemon(t, home), hold, "a background task ran")
		waitExit(t, home, "the task ended")
		if log, _, _ := exoEnv(t, home, ws, nil, "log", "bg"); !strings.Contains(log, strings.TrimSpace(id)+" exit 0") {
			t.Fatalf("the task's end is not in the log:\n%s", log)
		}
	})
	t.Run("subagent", func(t *testing.T) {
		lead := providertest.NewScriptedChat(
			providertest.ChatReply{ToolCalls: []providertest.ChatToolCall{{ID: "c1", Name: "spawn_agent", Args: `{"task":"count the files"}`}}},
			providertest.ChatReply{Text: "The subagent is on it."},
			providertest.ChatReply{Text: "Its report is in."},
		)
		defer lead.Close()
		sub := providertest.NewScriptedChat(providertest.ChatReply{Hang: true})
		defer sub.Close()
		router := routeChat("you are a subagent of session", sub, lead)
		defer router.Close()
		home, ws := t.TempDir(), t.TempDir()
		exoEnv(t, home, ws, shortIdle, "model", "register", "m", "--provider", "openai-compatible", "--base-url", router.URL+"/v1")
		out, errs, code := exoEnv(t, home, ws, shortIdle, "run", "--yes", "delegate the count")
		if code != 0 || !strings.Contains(out, "The subagent is on it.") {
			t.Fatalf("exo run: exit %d: %s %s", code, out, errs)
		}
		waitRequests(t, sub, 1, "the subagent")
		staysUp(t, home, theDaemon(t, home), hold, "a background subagent worked")
		sub.SetReplies(providertest.ChatReply{Text: "There are two files."})
		sub.Release()
		waitExit(t, home, "the subagent reported")
		log, _, _ := exoEnv(t, home, ws, nil, "log", leadSession(t, home, ws), "--json")
		if !strings.Contains(log, "subagent.completed") || !strings.Contains(log, "There are two files.") {
			t.Fatalf("the subagent's report is not in its parent's log:\n%s", log)
		}
	})
}

// leadSession returns the id of the session of home that is no subagent (has no parent).
func leadSession(t *testing.T, home, ws string) string {
	t.Helper()
	out, errs, code := exoEnv(t, home, ws, nil, "sessions", "--json")
	if code != 0 {
		t.Fatal(errs)
	}
	var rows []struct{ ID, Parent string }
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Parent == "" {
			return r.ID
		}
	}
	t.Fatalf("no lead session:\n%s", out)
	return ""
}

// TestDaemonWakesIdleSession: a turn started by `exo run` starts a background task and ends;
// no client is left. When the task finishes, the daemon records it and wakes the idle session:
// a follow-up turn runs by itself and its model request carries the task's output.
func TestDaemonWakesIdleSession(t *testing.T) {
	t.Parallel()
	srv := providertest.NewScriptedChat(
		providertest.ChatReply{ToolCalls: []providertest.ChatToolCall{{ID: "c1", Name: "bash", Args: `{"command":"sleep 1; echo woke-up-$((6*7))","background":true}`}}},
		providertest.ChatReply{Text: "Started; I will look when it ends."},
		providertest.ChatReply{Text: "The task printed its line."},
	)
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	exoEnv(t, home, ws, nil, "model", "register", "m", "--provider", "openai-compatible", "--base-url", srv.BaseURL())
	out, errs, code := exoEnv(t, home, ws, nil, "run", "--yes", "start it and tell me when it is done")
	if code != 0 || !strings.Contains(out, "Started; I will look when it ends.") {
		t.Fatalf("exo run: exit %d: %s %s", code, out, errs)
	}
	waitRequests(t, srv, 3, "the wake-up")
	if body := string(srv.Requests()[2].Body); !strings.Contains(body, "woke-up-42") {
		t.Fatalf("the woken turn's request does not carry the task's output:\n%s", body)
	}
	id := leadSession(t, home, ws)
	deadline := time.Now().Add(30 * time.Second)
	for {
		log := mustRunIn(t, home, ws, "log", id)
		if strings.Contains(log, "The task printed its line.") {
			if done := strings.Index(log, "task.completed"); done < 0 || done > strings.Index(log, "The task printed its line.") {
				t.Fatalf("the task's end is not recorded before the follow-up turn:\n%s", log)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the woken turn never finished:\n%s", log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("%d model requests, want 3 (one wake-up)", n)
	}
}
