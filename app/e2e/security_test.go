package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"exo/harness/provider/providertest"
)

// secretValue is the API key the security tests seal and then hunt for.
const secretValue = "sk-test-7f3a9c2e41d84b6fa0c5e9d2b7a14f68"

// exoEnv runs the exo binary with EXO_HOME=home in dir, with extra environment.
func exoEnv(t *testing.T, home, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	stopDaemonAtEnd(t, home)
	cmd := exec.Command(exoBin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "EXO_HOME="+home), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// TestSecretNeverLeaves seals an API key, lets the agent cat a workspace file that contains it
// (raw and base64) plus a large file that ends up as an artifact, and searches the bytes of
// every request body, the database and the artifacts for it.
func TestSecretNeverLeaves(t *testing.T) {
	t.Parallel()
	srv := providertest.NewScriptedChat(
		providertest.ChatReply{Text: "Reading it.", ToolCalls: []providertest.ChatToolCall{{ID: "c1", Name: "bash", Args: `{"command":"cat leak.txt; cat big.txt"}`}}},
		providertest.ChatReply{Text: "Let me print the key.", ToolCalls: []providertest.ChatToolCall{{ID: "c2", Name: "bash", Args: `{"command":"echo $OPENAI_API_KEY"}`}}},
		providertest.ChatReply{Text: "Done."},
	)
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	b64 := base64.StdEncoding.EncodeToString([]byte(secretValue))
	os.WriteFile(filepath.Join(ws, "leak.txt"), []byte("key="+secretValue+"\nb64="+b64+"\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "big.txt"), bytes.Repeat([]byte("line with "+secretValue+" inside\n"), 4000), 0o644)

	env := []string{"TEST_KEY=" + secretValue}
	if _, errs, code := exoEnv(t, home, ws, env, "secret", "set", "openai", "--env", "TEST_KEY"); code != 0 {
		t.Fatal(errs)
	}
	if _, errs, code := exoEnv(t, home, ws, nil, "model", "register", "m", "--provider", "openai-compatible", "--model-id", "gpt-4.1", "--base-url", srv.BaseURL(), "--secret", "openai"); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code := exoEnv(t, home, ws, nil, "run", "what is in leak.txt?")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	if strings.Contains(out+errs, secretValue) || strings.Contains(out+errs, b64) {
		t.Fatal("the secret reached the terminal")
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, r := range reqs {
		if r.Header.Get("Authorization") != "Bearer "+secretValue {
			t.Fatalf("request %d not authenticated with the sealed key", i)
		}
		if bytes.Contains(r.Body, []byte(secretValue)) || bytes.Contains(r.Body, []byte(b64)) {
			t.Fatalf("request %d body carries the secret", i)
		}
	}
	if !bytes.Contains(reqs[1].Body, []byte("‹secret:openai›")) {
		t.Fatalf("the tool output was not redacted to ‹secret:openai›: %s", reqs[1].Body)
	}
	if !bytes.Contains(reqs[2].Body, []byte("denied")) {
		t.Fatalf("reading the key through the shell was not denied: %s", reqs[2].Body)
	}
	logOut, _, _ := exoEnv(t, home, ws, nil, "log", "--json", lastSession(t, home))
	if !strings.Contains(logOut, `"secret.denied"`) {
		t.Fatal("no secret.denied event")
	}
	filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || strings.Contains(p, "/shadow/") || strings.HasSuffix(p, "secret.key") {
			return nil // the shadow repository holds the user's own files, compressed
		}
		b, _ := os.ReadFile(p)
		if bytes.Contains(b, []byte(secretValue)) || bytes.Contains(b, []byte(b64)) {
			t.Errorf("%s contains the secret", p)
		}
		return nil
	})
	arts, _ := filepath.Glob(filepath.Join(home, "artifacts", "*", "*"))
	found := false
	for _, a := range arts {
		b, _ := os.ReadFile(a)
		found = found || bytes.Contains(b, []byte("‹secret:openai›"))
	}
	if !found {
		t.Fatal("the large output's artifact is missing or not redacted")
	}
}

// lastSession returns the id of the newest session.
func lastSession(t *testing.T, home string) string {
	out, _, _ := exoEnv(t, home, ".", nil, "sessions", "--json")
	i := strings.LastIndex(out, `"id": "`)
	if i < 0 {
		t.Fatalf("no sessions: %s", out)
	}
	return out[i+7 : i+7+16]
}

// TestResumeAfterKillMidTurn SIGKILLs `exo run` while a tool runs (the turn goes on in the
// daemon), then SIGKILLs the daemon itself, then continues the session: the next command starts
// a new daemon, the turn is recorded as interrupted, the interrupted call is reported to the
// model and nothing committed is lost.
func TestResumeAfterKillMidTurn(t *testing.T) {
	t.Parallel()
	srv := providertest.NewScriptedChat(
		providertest.ChatReply{Text: "Running a long job.", ToolCalls: []providertest.ChatToolCall{{ID: "c1", Name: "bash", Args: `{"command":"echo started > started.txt; sleep 30"}`}}},
	)
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	exoEnv(t, home, ws, nil, "model", "register", "m", "--provider", "openai-compatible", "--base-url", srv.BaseURL())
	stopDaemonAtEnd(t, home)
	cmd := exec.Command(exoBin, "run", "start the job")
	cmd.Dir, cmd.Env = ws, append(os.Environ(), "EXO_HOME="+home)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(ws, "started.txt")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the tool never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	id := lastSession(t, home)
	if out, _, _ := exoEnv(t, home, ws, nil, "sessions", "--json"); !strings.Contains(out, `"running": true`) {
		t.Fatalf("the turn did not go on in the daemon after its client was killed:\n%s", out)
	}
	killDaemon(t, home)
	srv.SetReplies(providertest.ChatReply{Text: "The job was interrupted; I will not retry it."})
	out, errs, code := exoEnv(t, home, ws, nil, "run", "--session", id, "what happened?")
	if code != 0 {
		t.Fatalf("resume: exit %d %s", code, errs)
	}
	if !strings.Contains(out, "interrupted") {
		t.Fatalf("answer %q", out)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Body
	if !bytes.Contains(last, []byte("start the job")) || !bytes.Contains(last, []byte("interrupted")) || !bytes.Contains(last, []byte(`"tool_call_id":"c1"`)) {
		t.Fatalf("the resumed prompt does not report the interrupted call: %s", last)
	}
	if _, errs, code := exoEnv(t, home, ws, nil, "verify"); code != 0 {
		t.Fatalf("verify after kill: %s", errs)
	}
	if log, _, _ := exoEnv(t, home, ws, nil, "log", id); !strings.Contains(log, "turn.interrupted") {
		t.Fatalf("the killed turn is not recorded as interrupted:\n%s", log)
	}
}

// killDaemon SIGKILLs the daemon of home and waits until it is gone.
func killDaemon(t *testing.T, home string) int {
	t.Helper()
	var info struct{ Pid int }
	b, err := os.ReadFile(filepath.Join(home, "daemon.json"))
	if err != nil || json.Unmarshal(b, &info) != nil || info.Pid <= 0 {
		t.Fatalf("no daemon.json in %s: %v", home, err)
	}
	syscall.Kill(info.Pid, syscall.SIGKILL)
	for i := 0; i < 500 && syscall.Kill(info.Pid, 0) == nil; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	return info.Pid
}
