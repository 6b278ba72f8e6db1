package crash

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"exo/harness/provider/providertest"

	bolt "go.etcd.io/bbolt"
)

// waitRequest waits until the fake provider has received a request whose body holds want, and
// gives the server a moment to flush what it streams before holding.
func waitRequest(t *testing.T, srv *providertest.ScriptedChat, want string) string {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		reqs := srv.Requests()
		if len(reqs) > 0 && strings.Contains(string(reqs[len(reqs)-1].Body), want) {
			time.Sleep(300 * time.Millisecond)
			return string(reqs[len(reqs)-1].Body)
		}
	}
	t.Fatalf("the provider never received a request with %q", want)
	return ""
}

// startExo starts exo in the background in its own process group.
func startExo(t *testing.T, home, dir string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(exoBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "EXO_HOME="+home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

// logEvents reads a session's events from exo log --json.
func logEvents(t *testing.T, home, session string) []struct {
	Type string
	Data json.RawMessage
} {
	t.Helper()
	var evs []struct {
		Type string
		Data json.RawMessage
	}
	for _, l := range strings.Split(strings.TrimSpace(mustRun(t, home, "log", session, "--json")), "\n") {
		var e struct {
			Type string
			Data json.RawMessage
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("exo log --json: %v: %s", err, l)
		}
		evs = append(evs, e)
	}
	return evs
}

// TestKillDuringCompactionSummary kills -9 the daemon while a compaction's summary streams
// (issue 28, 11c: the summary's call was lost with its cost). After the restart the session is
// consistent: the compaction.started is closed by a compaction.cost marked cut by the kill and
// estimated (so its prompt's cost is counted), no summary was applied, the session is not left
// running, and the next turn sends the whole history.
func TestKillDuringCompactionSummary(t *testing.T) {
	t.Parallel()
	reply := providertest.ChatReply{Text: "read it", ToolCalls: []providertest.ChatToolCall{{ID: "r1", Name: "read_file", Args: `{"path":"README.md"}`}}}
	srv := providertest.NewScriptedChat(reply, providertest.ChatReply{Text: "done"})
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("# sample\n"+strings.Repeat("A line of the sample project's readme.\n", 60)), 0o644)
	mustRunIn(t, home, ws, "model", "register", "chat", "--provider", "openai-compatible", "--model-id", "local",
		"--base-url", srv.BaseURL(), "--context-window", "32000")
	mustRunIn(t, home, ws, "new", "--name", "lead")
	for i := 0; i < 3; i++ {
		srv.SetReplies(reply, providertest.ChatReply{Text: "done"})
		mustRunIn(t, home, ws, "run", "--session", "lead", "read the readme")
	}
	srv.SetReplies(providertest.ChatReply{Text: "The user asked three times to read the readme; the first half of a summ", Hold: true})
	cmd, out := startExo(t, home, ws, "compact", "lead")
	waitRequest(t, srv, "Summarise the conversation")
	if err := syscall.Kill(daemonPid(t, home), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatalf("exo compact ended well although its daemon was killed: %s", out)
	}
	waitDaemonGone(t, home)

	checkRecovered(t, home, "", "compaction summary")
	var started, closed int
	for _, e := range logEvents(t, home, "lead") {
		switch e.Type {
		case "compaction.started":
			started++
		case "compaction.cost":
			var c struct {
				Cut            string
				UsageEstimated bool `json:"usage_estimated"`
				Usage          struct{ Input int }
			}
			json.Unmarshal(e.Data, &c)
			if c.Cut != "killed" || !c.UsageEstimated || c.Usage.Input == 0 {
				t.Fatalf("the killed summary's cost: %s", e.Data)
			}
			closed++
		case "compaction.applied":
			if strings.Contains(string(e.Data), `"summarize"`) {
				t.Fatalf("a summary was applied: %s", e.Data)
			}
		}
	}
	if started != 1 || closed != 1 {
		t.Fatalf("compaction.started %d, closed by compaction.cost %d; want 1 and 1", started, closed)
	}
	if log := mustRun(t, home, "log", "lead"); !strings.Contains(log, "not applied (cut: exo was killed)") || !strings.Contains(log, "(estimated)") {
		t.Fatalf("exo log does not say the summary was cut:\n%s", log)
	}
	for _, r := range sessionRows(t, home) {
		if r.Status == "running" {
			t.Fatalf("the session is left running: %+v", r)
		}
	}
	srv.SetReplies(providertest.ChatReply{Text: "Carrying on."})
	if o, errs, code := exoEnv(t, home, ws, nil, "run", "--session", "lead", "go on"); code != 0 || !strings.Contains(o, "Carrying on.") {
		t.Fatalf("the next turn: exit %d %s %s", code, o, errs)
	}
	reqs := srv.Requests()
	body := string(reqs[len(reqs)-1].Body)
	if strings.Count(body, "read the readme") != 3 || strings.Contains(body, "first half of a summ") {
		t.Fatalf("the history is not whole after the kill: %s", body)
	}
}

// TestCtrlCAndStopMidAnswerKeepTheCutAnswer: Ctrl-C on exo run while the answer streams, and exo
// daemon stop while it streams, each leave the streamed text in the log as a cut answer (issue
// 25, defect 5), and the next turn sends it back to the model.
func TestCtrlCAndStopMidAnswerKeepTheCutAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, cut, label string }{{"ctrl-c", "cancelled", "cut: cancelled"}, {"daemon stop", "shutdown", "cut: exo stopped"}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := providertest.NewScriptedChat(providertest.ChatReply{Text: "Halfway through my answer", Hold: true})
			defer srv.Close()
			home, ws := t.TempDir(), t.TempDir()
			mustRunIn(t, home, ws, "model", "register", "m", "--provider", "openai-compatible", "--base-url", srv.BaseURL())
			mustRunIn(t, home, ws, "new", "--name", "s")
			cmd, out := startExo(t, home, ws, "run", "--session", "s", "explain")
			waitRequest(t, srv, "explain")
			if tc.cut == "cancelled" {
				cmd.Process.Signal(os.Interrupt)
			} else {
				mustRun(t, home, "daemon", "stop")
			}
			if err := cmd.Wait(); err == nil {
				t.Fatalf("exo run ended well: %s", out)
			}
			var found bool
			for _, e := range logEvents(t, home, "s") {
				if e.Type == "model.completed" {
					found = strings.Contains(string(e.Data), `"text":"Halfway through my answer"`) && strings.Contains(string(e.Data), `"cut":"`+tc.cut+`"`)
				}
			}
			if log := mustRun(t, home, "log", "s"); !found || !strings.Contains(log, tc.label) {
				t.Fatalf("the cut answer is not in the log:\n%s", log)
			}
			srv.SetReplies(providertest.ChatReply{Text: "Carrying on."})
			mustRunIn(t, home, ws, "run", "--session", "s", "go on")
			reqs := srv.Requests()
			if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, `"content":"Halfway through my answer"`) {
				t.Fatalf("the next turn does not send the cut answer back: %s", body)
			}
		})
	}
}

// TestKillMidAnswerKeepsWhatHadStreamed: kill -9 of the daemon while an answer streams keeps
// the text it had sent (saved about once a second beside the log) as an answer cut by the kill,
// with an estimated usage, before the turn's interruption; the next turn sends it back.
func TestKillMidAnswerKeepsWhatHadStreamed(t *testing.T) {
	t.Parallel()
	const marker = "Halfway through an answer that the kill cuts"
	srv := providertest.NewScriptedChat(providertest.ChatReply{Text: marker, Hold: true})
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	mustRunIn(t, home, ws, "model", "register", "m", "--provider", "openai-compatible", "--base-url", srv.BaseURL())
	mustRunIn(t, home, ws, "new", "--name", "s")
	cmd, out := startExo(t, home, ws, "run", "--session", "s", "explain")
	waitRequest(t, srv, "explain")
	// The save is a write to exo.db: wait until the file's committed state holds the text,
	// then kill. (The text in the file's bytes is not enough: bbolt writes a transaction's
	// pages, syncs them, and only then the meta page that commits them; a kill in between
	// loses the save, and the recovered log had no answer.)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if committedHolds(t, filepath.Join(home, "exo.db"), marker) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the streaming answer was never saved")
		}
	}
	if err := syscall.Kill(daemonPid(t, home), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatalf("exo run ended well although its daemon was killed: %s", out)
	}
	waitDaemonGone(t, home)
	checkRecovered(t, home, "", "answer streaming")
	var types []string
	var cut string
	for _, e := range logEvents(t, home, "s") {
		types = append(types, e.Type)
		if e.Type == "model.completed" {
			cut = string(e.Data)
		}
	}
	if !strings.Contains(cut, `"text":"`+marker+`"`) || !strings.Contains(cut, `"cut":"killed"`) || !strings.Contains(cut, `"usage_estimated":true`) {
		t.Fatalf("the killed answer is not in the log: %s (%v)", cut, types)
	}
	if n := len(types); n < 2 || types[n-2] != "model.completed" || types[n-1] != "turn.interrupted" {
		t.Fatalf("events: %v", types)
	}
	if log := mustRun(t, home, "log", "s"); !strings.Contains(log, "cut: exo was killed") {
		t.Fatalf("exo log:\n%s", log)
	}
	srv.SetReplies(providertest.ChatReply{Text: "Carrying on."})
	mustRunIn(t, home, ws, "run", "--session", "s", "go on")
	reqs := srv.Requests()
	if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, `"content":"`+marker+`"`) {
		t.Fatalf("the next turn does not send the killed answer back: %s", body)
	}
}

// committedHolds reports whether the last committed state of the bbolt file at path holds
// text in a value, read from a copy (the daemon holds the file's lock). The copy reads the
// meta pages first, at the file's start, and a commit never overwrites the pages its last
// committed state reaches; a copy torn all the same (a newer commit reused a page meanwhile)
// reads as not yet.
func committedHolds(t *testing.T, path, text string) (found bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(b, []byte(text)) {
		return false
	}
	cp := filepath.Join(t.TempDir(), "exo.db")
	if err := os.WriteFile(cp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() != nil { // a torn copy's page
			found = false
		}
	}()
	db, err := bolt.Open(cp, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return false
	}
	defer db.Close()
	var walk func(b *bolt.Bucket) bool
	walk = func(b *bolt.Bucket) bool {
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if v == nil {
				if nb := b.Bucket(k); nb != nil && walk(nb) {
					return true
				}
			} else if bytes.Contains(v, []byte(text)) {
				return true
			}
		}
		return false
	}
	_ = db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(_ []byte, b *bolt.Bucket) error {
			if walk(b) {
				found = true
			}
			return nil
		})
	})
	return found
}
