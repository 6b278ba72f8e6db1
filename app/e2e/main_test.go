package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"exo/app/e2e/exobuild"
	"exo/harness"
	"exo/harness/provider/providertest"
)

// exoBin is the exo binary built once for the end-to-end tests.
var exoBin string

// providerData is the module's recorded provider streams and replies (testdata/providers at
// the repository's root), relative to this package's folder where go test runs.
var providerData = filepath.Join("..", "..", "testdata", "providers")

func TestMain(m *testing.M) {
	if home := os.Getenv("EXO_TEST_HOLD_HOME"); home != "" {
		holdHome(home)
		return
	}
	dir, err := os.MkdirTemp("", "exo-bin-")
	if err != nil {
		panic(err)
	}
	if exoBin, err = exobuild.Build(dir); err != nil {
		panic(err)
	}
	// A daemon a test forgot to stop goes away soon by itself.
	os.Setenv("EXO_DAEMON_IDLE", "20s")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// daemonHomes remembers, per test, the homes whose daemon the test's end stops.
var daemonHomes sync.Map

// stopDaemonAtEnd stops home's daemon when t ends (before t.TempDir removes home): every exo
// command starts one for its EXO_HOME.
func stopDaemonAtEnd(t testing.TB, home string) {
	if _, seen := daemonHomes.LoadOrStore(t.Name()+"\x00"+home, true); seen {
		return
	}
	t.Cleanup(func() {
		cmd := exec.Command(exoBin, "--home", home, "daemon", "stop")
		cmd.Env = append(os.Environ(), "EXO_HOME="+home)
		_ = cmd.Run()
	})
}

// run runs the exo binary with EXO_HOME=home and returns stdout, stderr and the exit code.
func run(t *testing.T, home string, args ...string) (string, string, int) {
	t.Helper()
	return exoEnv(t, home, "", nil, args...)
}

func mustRun(t *testing.T, home string, args ...string) string {
	t.Helper()
	out, errs, code := run(t, home, args...)
	if code != 0 {
		t.Fatalf("exo %v: exit %d: %s", args, code, errs)
	}
	return out
}

// gitRepo makes a git repository with one commit in a temporary directory.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("a repo\n"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return dir
}

// TestCLISessionsForkRewindLog works in a repository of its own, never the one the tests run
// from (its forks' worktrees would be registered there).
func TestCLISessionsForkRewindLog(t *testing.T) {
	t.Parallel()
	home, repo := t.TempDir(), gitRepo(t)
	in := func(args ...string) string {
		t.Helper()
		out, errs, code := exoEnv(t, home, repo, nil, args...)
		if code != 0 {
			t.Fatalf("exo %v: exit %d: %s", args, code, errs)
		}
		return out
	}
	id := strings.TrimSpace(in("new", "--name", "demo"))
	in("say", "demo", "first prompt")
	in("say", id[:8], "second prompt")
	fork := strings.TrimSpace(in("fork", "demo@2", "--name", "side"))
	in("say", "side", "only in the fork")
	in("rewind", "demo@2")

	var rows []struct {
		Name     string
		Events   uint64
		Parent   string
		Branches int
		Project  string
	}
	if err := json.Unmarshal([]byte(in("sessions", "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Events != 3 || rows[0].Branches != 2 || rows[1].Parent != "demo" || rows[1].Events != 4 {
		t.Fatalf("sessions: %+v", rows)
	}
	// Sessions of every directory are listed: each names its project, a fork its project's
	// (not its working copy under EXO_HOME).
	if p := filepath.Base(repo); rows[0].Project != p || rows[1].Project != p || !strings.Contains(in("sessions"), "PROJECT") {
		t.Fatalf("projects %q and %q, want %q", rows[0].Project, rows[1].Project, p)
	}
	lines := strings.Split(strings.TrimSpace(mustRun(t, home, "log", fork, "--json")), "\n")
	if len(lines) != 4 || !strings.Contains(lines[3], "only in the fork") || !strings.Contains(lines[2], "session.forked") {
		t.Fatalf("fork log: %q", lines)
	}
	txt := mustRun(t, home, "log", "demo", "--from", "2", "--to", "3")
	if !strings.Contains(txt, "first prompt") || strings.Contains(txt, "second prompt") || !strings.Contains(txt, "session.rewound") {
		t.Fatalf("rewound log:\n%s", txt)
	}
	if out := mustRun(t, home, "verify"); !strings.HasPrefix(out, "ok: ") {
		t.Fatalf("verify: %s", out)
	}
}

func TestCLIUsageErrorsExit2(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	mustRun(t, home, "new", "--name", "demo")
	for _, args := range [][]string{
		{"log", "nobody"}, {"rewind", "demo@0"}, {"rewind", "demo@99"}, {"rewind", "demo"},
		{"fork", "demo@x"}, {"log", "demo", "--from", "9"}, {"say", "demo"}, {"sessions", "--bogus"},
		{"artifact", "get", "abcdef12"}, {"bogus"}, {"fork", "demo@999"},
	} {
		_, errs, code := run(t, home, args...)
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.HasPrefix(errs, "exo: ") {
			t.Errorf("exo %v: exit %d, stderr %q; want exit 2 and one line", args, code, errs)
		}
	}
	// The line says what was wrong in words: the usage of a command given too few arguments,
	// no strconv in a bad number's message, and an unknown shell for completion is an error.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"say"}, "(usage: exo say SESSION TEXT"},
		{[]string{"log", "demo", "--from", "abc"}, `"abc" for "--from" flag: not a number`},
		{[]string{"completion", "tcsh"}, `unknown command "tcsh"`},
		{[]string{"artifact", "get", "abcdef12"}, `no artifact matches "abcdef12"`},
	} {
		_, errs, code := run(t, home, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Contains(errs, "strconv") {
			t.Errorf("exo %v: exit %d, stderr %q; want exit 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestCLIEmptyJSONListsAreArrays: a --json list with nothing in it prints [] (never null).
func TestCLIEmptyJSONListsAreArrays(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	for _, args := range [][]string{{"sessions", "--json"}, {"task", "ls", "--json"}, {"mcp", "ls", "--json"}, {"secret", "ls", "--json"}} {
		out, errs, code := exoEnv(t, home, dir, nil, args...)
		if code != 0 || strings.TrimSpace(out) != "[]" {
			t.Errorf("exo %v: exit %d, printed %q (%s), want []", args, code, out, errs)
		}
	}
}

func TestCLIVerifyNamesTamperedEvent(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	id := strings.TrimSpace(mustRun(t, home, "new", "--name", "t"))
	for i := 0; i < 5; i++ {
		mustRun(t, home, "say", "t", "message")
	}
	mustRun(t, home, "daemon", "stop") // it holds exo.db; the next command starts another
	db, err := bolt.Open(filepath.Join(home, "exo.db"), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("events")).Bucket([]byte(id))
		k := []byte{0, 0, 0, 0, 0, 0, 0, 4}
		v := append([]byte(nil), b.Get(k)...)
		i := bytes.Index(v, []byte("message"))
		v[i] = 'M'
		return b.Put(k, v)
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	_, errs, code := run(t, home, "verify")
	if code != 1 || !strings.Contains(errs, id+"@4") {
		t.Fatalf("verify after tamper: exit %d, %q", code, errs)
	}
	_, errs, code = run(t, home, "verify", "t")
	if code != 1 || !strings.Contains(errs, id+"@4") {
		t.Fatalf("verify session after tamper: exit %d, %q", code, errs)
	}
}

// TestCLISecondProcessFailsFast holds EXO_HOME with another process: the daemon the next command
// starts cannot open the store, and the command fails at once with one line naming the holder.
func TestCLISecondProcessFailsFast(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	mustRun(t, home, "new", "--name", "x")
	mustRun(t, home, "daemon", "stop")
	// Hold EXO_HOME with a child process that keeps the harness open until its stdin closes.
	holder := exec.Command(os.Args[0])
	holder.Env = append(os.Environ(), "EXO_TEST_HOLD_HOME="+home)
	stdin, _ := holder.StdinPipe()
	stdout, _ := holder.StdoutPipe()
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); holder.Wait() }()
	ready := make([]byte, 5)
	if _, err := io.ReadFull(stdout, ready); err != nil || string(ready) != "ready" {
		t.Fatalf("holder did not start: %q %v", ready, err)
	}
	start := time.Now()
	_, errs, code := run(t, home, "sessions")
	if code != 1 {
		t.Fatalf("second process: exit %d, %q", code, errs)
	}
	if time.Since(start) > 10*time.Second { // the store's lock timeout is 1 s: it must not wait on the holder
		t.Fatalf("second process took %v to fail", time.Since(start))
	}
	want := "exo is already running (pid " + strconv.Itoa(holder.Process.Pid) + ")"
	if !strings.Contains(errs, want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Fatalf("message %q does not name holder %d in one line", errs, holder.Process.Pid)
	}
}

// holdHome opens the harness on home and keeps it open until stdin closes.
func holdHome(home string) {
	h, err := harness.Open(home, harness.Options{})
	if err != nil {
		os.Exit(3)
	}
	os.Stdout.WriteString("ready")
	io.Copy(io.Discard, os.Stdin)
	h.Close()
}

// BenchmarkRunStream runs `exo run` end to end (a fresh process each time) on one streamed answer
// of 10k, 40k and 160k one-character deltas from a local Chat Completions server.
func BenchmarkRunStream(b *testing.B) {
	for _, n := range []int{10_000, 40_000, 160_000} {
		b.Run(fmt.Sprintf("deltas=%d", n), func(b *testing.B) {
			srv := providertest.NewChatServer(n, "x")
			defer srv.Close()
			home := b.TempDir()
			stopDaemonAtEnd(b, home)
			if out, err := exec.Command(exoBin, "--home", home, "model", "register", "local", "--provider", "openai-compatible",
				"--model-id", "bench", "--base-url", srv.BaseURL()).CombinedOutput(); err != nil {
				b.Fatalf("%v %s", err, out)
			}
			ws := b.TempDir()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(exoBin, "--home", home, "run", "go")
				cmd.Dir = ws
				var out bytes.Buffer
				cmd.Stdout = &out
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				if got := strings.Count(out.String(), "x"); got != n {
					b.Fatalf("streamed %d of %d deltas", got, n)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/run")
		})
	}
}

// TestCLIListsAroundADamagedSession damages one session's log (an event cut to three bytes):
// exo sessions lists every session all the same, marks that one damaged and says why, where it
// used to fail as a whole.
func TestCLIListsAroundADamagedSession(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	bad := strings.TrimSpace(mustRun(t, home, "new", "--name", "bad"))
	mustRun(t, home, "new", "--name", "good")
	for i := 0; i < 3; i++ {
		mustRun(t, home, "say", "bad", "message")
		mustRun(t, home, "say", "good", "message")
	}
	mustRun(t, home, "daemon", "stop")
	db, err := bolt.Open(filepath.Join(home, "exo.db"), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("events")).Bucket([]byte(bad))
		k := []byte{0, 0, 0, 0, 0, 0, 0, 3}
		return b.Put(k, append([]byte(nil), b.Get(k)[:3]...))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, errs, code := run(t, home, "sessions")
	if code != 0 {
		t.Fatalf("exo sessions with one damaged session: exit %d: %s%s", code, out, errs)
	}
	if !strings.Contains(out, "good") || !regexp.MustCompile(`bad\s+\S+\s+damaged`).MatchString(out) {
		t.Fatalf("exo sessions does not list both, the bad one as damaged:\n%s", out)
	}
	if !strings.Contains(errs, "session bad is damaged") || !strings.Contains(errs, "exo verify bad") {
		t.Fatalf("exo sessions does not say why: %q", errs)
	}
	js := mustRun(t, home, "sessions", "--json")
	if !strings.Contains(js, `"damaged"`) {
		t.Fatalf("exo sessions --json does not say which is damaged: %s", js)
	}
}
