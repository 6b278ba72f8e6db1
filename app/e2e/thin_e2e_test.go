package e2e

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"exo/harness/provider/providertest"
)

// exeOf says which binary a process runs now: the thin exo, or exo-full once it replaced
// itself with the full binary.
func exeOf(t *testing.T, pid int) string {
	t.Helper()
	p, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "exe"))
	if err != nil {
		t.Fatalf("readlink exe of %d: %v", pid, err)
	}
	return filepath.Base(p)
}

// TestThinRunIsRelayedAndCancels: with a warm daemon, `exo run` stays the thin process (the
// daemon runs the command line), streams into it, and its Ctrl-C cancels the turn as the full
// exo's does: "cancelling the turn", the turn recorded as cancelled, exit 130.
func TestThinRunIsRelayedAndCancels(t *testing.T) {
	t.Parallel()
	srv := providertest.NewScriptedChat(providertest.ChatReply{Hang: true})
	defer srv.Close()
	home, ws := t.TempDir(), gitRepo(t)
	exoEnv(t, home, ws, nil, "model", "register", "hang", "--provider", "openai-compatible", "--base-url", srv.BaseURL())
	id := strings.TrimSpace(mustRunIn(t, home, ws, "new", "--name", "relayed"))
	cmd := exec.Command(exoBin, "run", "--session", id, "wait for it")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "EXO_HOME="+home)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitRequests(t, srv, 1, "relayed run")
	if exe := exeOf(t, cmd.Process.Pid); exe != "exo" {
		t.Fatalf("exo run with a warm daemon runs as %s, not relayed by the thin exo", exe)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 {
		t.Fatalf("exo run after Ctrl-C: %v, stderr %s", err, errb.String())
	}
	if !strings.Contains(errb.String(), "cancelling the turn") {
		t.Fatalf("stderr %q", errb.String())
	}
	log := mustRunIn(t, home, ws, "log", id)
	if !strings.Contains(log, "turn.cancelled") {
		t.Fatalf("the log has no cancelled turn:\n%s", log)
	}
}

// TestThinMatchesFull runs the relayed commands through the daemon and through the full exo
// (EXO_RELAY=0) on the same store and compares what they print, byte for byte; it checks that
// a relayed command runs in the client's directory, reads stdin only when it asks for it, and
// that the thin exo falls back to the full exo where the daemon would not do what was meant.
func TestThinMatchesFull(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), gitRepo(t)
	mustRunIn(t, home, ws, "model", "register", "demo", "--provider", "scripted")
	both := func(args ...string) (string, string) {
		t.Helper()
		relayed, rerr, rc := exoEnv(t, home, ws, nil, args...)
		full, ferr, fc := exoEnv(t, home, ws, []string{"EXO_RELAY=0"}, args...)
		if rc != fc || relayed != full {
			t.Fatalf("exo %v: relayed exit %d:\n%s\n%s\nfull exit %d:\n%s\n%s", args, rc, relayed, rerr, fc, full, ferr)
		}
		return relayed, rerr
	}
	// a new session takes the client's directory as its workspace
	id := strings.TrimSpace(mustRunIn(t, home, ws, "new", "--name", "here"))
	out, _ := both("sessions", "--json")
	if !strings.Contains(out, `"workspace": "`+ws+`"`) {
		t.Fatalf("the session's workspace is not the client's directory %s:\n%s", ws, out)
	}
	// a turn: the prompt from stdin, the answer on stdout, tool activity on stderr
	cmd := exec.Command(exoBin, "run", "--session", id, "-")
	cmd.Dir, cmd.Env = ws, append(os.Environ(), "EXO_HOME="+home)
	cmd.Stdin = strings.NewReader("write hello.py and run it")
	var rout, rerr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &rout, &rerr
	if err := cmd.Run(); err != nil {
		t.Fatalf("exo run -: %v %s", err, rerr.String())
	}
	if !strings.Contains(rout.String(), "scripted demo model") || !strings.Contains(rerr.String(), "▸ write_file hello.py") {
		t.Fatalf("exo run - printed:\n%s\nstderr:\n%s", rout.String(), rerr.String())
	}
	if _, err := os.Stat(filepath.Join(ws, "hello.py")); err != nil {
		t.Fatalf("the turn's file is not in the client's directory: %v", err)
	}
	both("log", id)
	both("log", id, "--json")
	both("sessions", "--json")
	both("run", "--session", id, "--max-steps", "0", "x") // a usage error: the same message and exit 2
	both("log", "no-such-session")
	both("verify", id)
	os.Mkdir(filepath.Join(ws, "sub"), 0o755)
	if out := mustRunIn(t, home, ws, "new", "--name", "sub", "--workspace", "sub", "--json"); !strings.Contains(out, `"workspace": "`+filepath.Join(ws, "sub")+`"`) {
		t.Fatalf("a relative --workspace is not the client's directory's:\n%s", out)
	}
	fork := mustRunIn(t, home, ws, "fork", id+"@3", "--name", "branched", "--json")
	if !strings.Contains(fork, `"name": "branched"`) {
		t.Fatalf("fork: %s", fork)
	}

	// a command that does not read stdin leaves it to the next command of a script
	sh := exec.Command("sh", "-c", `"$EXO" sessions >/dev/null && cat`)
	sh.Dir, sh.Env = ws, append(os.Environ(), "EXO_HOME="+home, "EXO="+exoBin)
	sh.Stdin = strings.NewReader("left for cat\n")
	if got, err := sh.Output(); err != nil || string(got) != "left for cat\n" {
		t.Fatalf("stdin after exo sessions: %q %v", got, err)
	}

	// another time zone than the daemon's: the full exo prints the times in the client's
	tzOut, _, code := exoEnv(t, home, ws, []string{"TZ=Asia/Kathmandu"}, "log", id)
	fullTZ, _, _ := exoEnv(t, home, ws, []string{"TZ=Asia/Kathmandu", "EXO_RELAY=0"}, "log", id)
	if code != 0 || tzOut != fullTZ {
		t.Fatalf("exo log in another time zone:\n%s\nfull exo:\n%s", tzOut, fullTZ)
	}
}

// TestThinWithoutFull: a thin exo whose exo-full is gone says so and how to build it.
func TestThinWithoutFull(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lone := filepath.Join(dir, "exo")
	data, err := os.ReadFile(exoBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(lone, "sessions")
	cmd.Env = append(os.Environ(), "EXO_HOME="+t.TempDir(), "PATH="+dir, "EXO_FULL=")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "exo-full") || !strings.Contains(string(out), "go build") {
		t.Fatalf("exo without exo-full: %v %s", err, out)
	}
}

// TestThinDaemonKilledMidCommand: the daemon killed while it runs a relayed command; the thin
// exo says it lost the daemon (exit 1), and the next command starts a new daemon.
func TestThinDaemonKilledMidCommand(t *testing.T) {
	t.Parallel()
	srv := providertest.NewScriptedChat(providertest.ChatReply{Hang: true})
	defer srv.Close()
	home, ws := t.TempDir(), gitRepo(t)
	exoEnv(t, home, ws, nil, "model", "register", "hang", "--provider", "openai-compatible", "--base-url", srv.BaseURL())
	cmd := exec.Command(exoBin, "run", "hang on")
	cmd.Dir, cmd.Env = ws, append(os.Environ(), "EXO_HOME="+home)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitRequests(t, srv, 1, "relayed run")
	st := statusBy(t, exoBin, home)
	if err := syscall.Kill(st.Daemon.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 1 || !strings.Contains(errb.String(), "lost the exo daemon") {
			t.Fatalf("exo run after the daemon's kill: %v, stderr %q", err, errb.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("exo run did not notice the daemon's death")
	}
	if out := mustRunIn(t, home, ws, "sessions"); !strings.Contains(out, "interrupted") {
		t.Fatalf("after the kill, the turn is not shown interrupted:\n%s", out)
	}
}

// TestThinNoModelHelpSeesClientKeys: with no model registered, a relayed exo run says which API
// key variables are set in the user's shell (not the daemon's), and the key's value never
// leaves the client: it is in no file of EXO_HOME.
func TestThinNoModelHelpSeesClientKeys(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	mustRunIn(t, home, ws, "sessions") // a warm daemon started without the key
	const key = "sk-thin-client-only-8d1f0c2b7a"
	_, errs, code := exoEnv(t, home, ws, []string{"OPENAI_API_KEY=" + key}, "run", "hello")
	if code != 2 || !strings.Contains(errs, "OPENAI_API_KEY is set: seal it") || os.Getenv("ANTHROPIC_API_KEY") == "" && strings.Contains(errs, "ANTHROPIC_API_KEY is set") {
		t.Fatalf("exit %d, stderr:\n%s", code, errs)
	}
	filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(key)) {
				t.Errorf("the client's key is in %s", p)
			}
		}
		return nil
	})
}

// TestThinClientKilledMidTurn: the thin exo run killed with SIGKILL while the daemon runs its
// command line and the model streams: the daemon drops the command's side, the turn goes on to
// its end in the log (as with the full exo, the turn is the daemon's), and the daemon serves the
// next command.
func TestThinClientKilledMidTurn(t *testing.T) {
	t.Parallel()
	srv := newGatedChat([2]string{"first part, ", "the rest"})
	defer srv.Close()
	defer srv.open(0)
	defer srv.open(1)
	home, ws := t.TempDir(), t.TempDir()
	exoEnv(t, home, ws, nil, "model", "register", "gated", "--provider", "openai-compatible", "--base-url", srv.URL+"/v1")
	id := strings.TrimSpace(mustRunIn(t, home, ws, "new", "--name", "orphan"))
	cmd := exec.Command(exoBin, "run", "--session", id, "go on without me")
	cmd.Dir, cmd.Env = ws, append(os.Environ(), "EXO_HOME="+home)
	out := &syncBuffer{}
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); srv.seen() == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the model was never called")
		}
	}
	if exe := exeOf(t, cmd.Process.Pid); exe != "exo" {
		t.Fatalf("exo run runs as %s, not relayed", exe)
	}
	srv.open(0)
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(string(out.Bytes()), "first part"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the first part never streamed to the thin exo: %q", out.Bytes())
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	srv.open(1)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		log := mustRunIn(t, home, ws, "log", id)
		if strings.Contains(log, "turn.completed") || strings.Contains(log, "the rest") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the turn did not end in the log after its client died:\n%s", log)
		}
	}
	if v := mustRunIn(t, home, ws, "verify", id); !strings.Contains(v, "ok") {
		t.Fatalf("verify after the client's death: %s", v)
	}
}

// TestThinStdinBounded: 80 MiB on stdin for exo run - is refused with a clear usage error, both
// relayed (the daemon reads it) and by the full exo, and the daemon, which read it for the thin
// client, serves the next command.
func TestThinStdinBounded(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	mustRunIn(t, home, ws, "model", "register", "demo", "--provider", "scripted")
	id := strings.TrimSpace(mustRunIn(t, home, ws, "new", "--name", "flood"))
	for _, env := range [][]string{nil, {"EXO_RELAY=0"}} {
		cmd := exec.Command(exoBin, "run", "--session", id, "-")
		cmd.Dir, cmd.Env = ws, append(append(os.Environ(), "EXO_HOME="+home), env...)
		cmd.Stdin = io.LimitReader(zeroReader{}, 80<<20)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(errb.String(), "stdin holds more than 64 MiB") {
			t.Fatalf("%v: exo run - with 80 MiB: %v %q", env, err, errb.String())
		}
	}
	if out := mustRunIn(t, home, ws, "sessions"); !strings.Contains(out, "flood") {
		t.Fatalf("the daemon after the flood: %s", out)
	}
}

// zeroReader reads 'a's forever.
type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// TestThinRunsNoPlantedFull: a thin exo whose EXO_FULL or PATH is relative never runs the
// exo-full a repository planted in the current directory, and one pointed at itself says so
// instead of running itself forever; both end at once with a clear error.
func TestThinRunsNoPlantedFull(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lone := filepath.Join(dir, "exo")
	data, err := os.ReadFile(exoBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	marker := filepath.Join(repo, "planted-ran")
	if err := os.WriteFile(filepath.Join(repo, "exo-full"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"EXO_FULL=exo-full", "PATH=/usr/bin:/bin"}, "EXO_FULL=exo-full is not an absolute path"},
		{[]string{"EXO_FULL=./exo-full", "PATH=/usr/bin:/bin"}, "not an absolute path"},
		{[]string{"EXO_FULL=", "PATH=.:/usr/bin:/bin"}, "relative entry"},
		{[]string{"EXO_FULL=", "PATH=/usr/bin::/bin"}, "relative entry"},
		{[]string{"EXO_FULL=" + lone}, "this thin exo itself"},
	} {
		for _, args := range [][]string{{"sessions"}, {"daemon", "status"}} {
			cmd := exec.Command(lone, args...)
			cmd.Dir = repo
			cmd.Env = append(append(os.Environ(), "EXO_HOME="+t.TempDir()), c.env...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(out.String(), c.want) {
					t.Fatalf("%v exo %v: %v\n%s", c.env, args, err, out.String())
				}
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("%v exo %v still runs after a minute (running itself?)", c.env, args)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("%v exo %v ran the exo-full planted in the current directory", c.env, args)
			}
		}
	}
}

// TestThinHomeAsTheFullExoParsesIt: a --home the thin exo's scan sees but exo's parsing takes
// as another flag's value (exo new --workspace --home=B: a workspace folder of that name) does
// not send the command line to B's daemon: the session is made in the client's EXO_HOME, as the
// full exo makes it.
func TestThinHomeAsTheFullExoParsesIt(t *testing.T) {
	t.Parallel()
	homeA, homeB, ws := t.TempDir(), t.TempDir(), t.TempDir()
	mustRunIn(t, homeB, ws, "sessions") // B's daemon is warm
	mustRunIn(t, homeA, ws, "sessions")
	stopDaemonAtEnd(t, homeA)
	stopDaemonAtEnd(t, homeB)
	// The workspace must exist: exo refuses a session on a folder that is not there.
	if err := os.MkdirAll(filepath.Join(ws, "--home="+homeB), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := exoEnv(t, homeA, ws, nil, "new", "--name", "odd", "--workspace", "--home="+homeB); code != 0 {
		t.Fatalf("exo new: exit %d %s", code, errs)
	}
	inA := mustRunIn(t, homeA, ws, "sessions", "--json")
	inB := mustRunIn(t, homeB, ws, "sessions", "--json")
	if !strings.Contains(inA, `"odd"`) || strings.Contains(inB, `"odd"`) {
		t.Fatalf("the session went to the wrong EXO_HOME:\nA: %s\nB: %s", inA, inB)
	}
}
