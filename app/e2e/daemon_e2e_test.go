package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"exo/harness/provider/providertest"
)

// daemonPids lists the running `exo daemon` processes serving home (from /proc). A child the
// daemon is starting (a sandbox, git) shows the daemon's command line between fork and exec;
// it is no daemon and is left out, as are zombies.
func daemonPids(t *testing.T, home string) []int {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	parents := map[int]int{}
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) < 4 || args[1] != "daemon" || args[2] != "--home" || args[3] != home {
			continue
		}
		st, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		// stat is "pid (comm) state ppid ...": comm may hold spaces, so read after its ')'.
		f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:]))
		if len(f) < 2 || f[0] == "Z" {
			continue // a zombie waiting for its parent is gone already
		}
		pid, _ := strconv.Atoi(filepath.Base(d))
		parents[pid], _ = strconv.Atoi(f[1])
	}
	var out []int
	for pid, ppid := range parents {
		if _, forked := parents[ppid]; !forked {
			out = append(out, pid)
		}
	}
	slices.Sort(out)
	return out
}

// TestRacingClientsStartOneDaemon starts eight commands at once on a fresh EXO_HOME: they all
// succeed and exactly one daemon serves them (the start lock).
func TestRacingClientsStartOneDaemon(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	stopDaemonAtEnd(t, home)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			args := []string{"sessions"}
			if i%2 == 1 {
				args = []string{"new", "--name", "racer-" + strconv.Itoa(i)}
			}
			if _, e, code := run(t, home, args...); code != 0 {
				errs <- e
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("a racing client failed: %s", e)
	}
	if pids := daemonPids(t, home); len(pids) != 1 {
		t.Fatalf("%d daemons for one EXO_HOME: %v", len(pids), pids)
	}
	out := mustRun(t, home, "sessions")
	if strings.Count(out, "racer-") != 4 {
		t.Fatalf("sessions:\n%s", out)
	}
}

// TestDaemonLifecycle covers status, the private socket folder, a stale socket left by a killed
// daemon, stop, and a client run as another user.
func TestDaemonLifecycle(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	stopDaemonAtEnd(t, home)
	if _, _, code := run(t, home, "daemon", "status"); code != 1 {
		t.Fatalf("status with no daemon: exit %d", code)
	}
	if out, _, code := run(t, home, "daemon", "status", "--json"); code != 1 || !strings.Contains(out, `"running": false`) {
		t.Fatalf("status --json with no daemon: exit %d, %q (want exit 1 and running false)", code, out)
	}
	mustRun(t, home, "new", "--name", "life")
	var st struct {
		Running bool
		Daemon  struct {
			Pid    int
			Socket string
		}
	}
	if err := json.Unmarshal([]byte(mustRun(t, home, "daemon", "status", "--json")), &st); err != nil || !st.Running {
		t.Fatalf("status: %v %+v", err, st)
	}
	fi, err := os.Lstat(filepath.Dir(st.Daemon.Socket))
	if err != nil || fi.Mode().Perm() != 0o700 || !fi.IsDir() {
		t.Fatalf("runtime folder: %v %v", fi.Mode(), err)
	}
	if fi, err := os.Lstat(st.Daemon.Socket); err != nil || fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket: %v %v", fi.Mode(), err)
	}
	// kill -9 leaves the socket file behind: the next command must start a new daemon anyway.
	old := killDaemon(t, home)
	if _, err := os.Lstat(st.Daemon.Socket); err != nil {
		t.Fatalf("expected the killed daemon's socket file to stay behind: %v", err)
	}
	if out := mustRun(t, home, "sessions"); !strings.Contains(out, "life") {
		t.Fatalf("sessions after kill: %s", out)
	}
	if pids := daemonPids(t, home); len(pids) != 1 || pids[0] == old {
		t.Fatalf("daemons after the restart: %v (killed %d)", pids, old)
	}
	if os.Getuid() == 0 {
		// Another user cannot reach root's socket folder.
		cmd := exec.Command("/bin/sh", "-c", "exec 3<>/dev/null; test -r "+st.Daemon.Socket+" || test -w "+st.Daemon.Socket)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		if cmd.Run() == nil {
			t.Fatal("user nobody can reach the daemon's socket")
		}
	}
	mustRun(t, home, "daemon", "stop")
	if pids := daemonPids(t, home); len(pids) != 0 {
		t.Fatalf("daemons after stop: %v", pids)
	}
	if _, err := os.Lstat(st.Daemon.Socket); err == nil {
		t.Fatal("the socket file outlived exo daemon stop")
	}
}

// TestRunDetachedAndTail starts a turn with --detach, follows it with exo tail --json from
// another process, and checks the turn ran to its end in the daemon with no client attached.
func TestRunDetachedAndTail(t *testing.T) {
	t.Parallel()
	srv := providertest.NewScriptedChat(
		providertest.ChatReply{Text: "Writing it.", ToolCalls: []providertest.ChatToolCall{{ID: "c1", Name: "bash", Args: `{"command":"sleep 0.5; echo detached > out.txt"}`}}},
		providertest.ChatReply{Text: "All done, detached."},
	)
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	exoEnv(t, home, ws, nil, "model", "register", "m", "--provider", "openai-compatible", "--base-url", srv.BaseURL())
	out, errs, code := exoEnv(t, home, ws, nil, "run", "--detach", "write out.txt")
	if code != 0 {
		t.Fatal(errs)
	}
	id := strings.TrimSpace(out)
	tail := exec.Command(exoBin, "tail", id, "--json", "--from", "1")
	tail.Env = append(os.Environ(), "EXO_HOME="+home)
	stdout, _ := tail.StdoutPipe()
	if err := tail.Start(); err != nil {
		t.Fatal(err)
	}
	defer tail.Process.Kill()
	dec := json.NewDecoder(stdout)
	var seqs []uint64
	deadline := time.AfterFunc(30*time.Second, func() { tail.Process.Kill() })
	defer deadline.Stop()
	for {
		var ev struct {
			Seq  uint64
			Type string
			Data json.RawMessage
		}
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("tail ended before the answer (%v); seqs %v", err, seqs)
		}
		seqs = append(seqs, ev.Seq)
		if ev.Type == "model.completed" && strings.Contains(string(ev.Data), "All done, detached.") {
			break
		}
	}
	for i, s := range seqs {
		if s != uint64(i+1) {
			t.Fatalf("tail seqs have a gap or duplicate: %v", seqs)
		}
	}
	if b, err := os.ReadFile(filepath.Join(ws, "out.txt")); err != nil || strings.TrimSpace(string(b)) != "detached" {
		t.Fatalf("out.txt: %q %v", b, err)
	}
}

// TestRunStreamsIntoTheApp opens the app in tmux on a session and runs `exo run` on it from
// another shell: the answer streams onto the app's screen.
func TestRunStreamsIntoTheApp(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	if _, errs, code := run(t, home, "model", "register", "demo", "--provider", "scripted"); code != 0 {
		t.Fatal(errs)
	}
	id := strings.TrimSpace(mustRun(t, home, "new", "--name", "shared", "--workspace", ws))
	scr := startTmux(t, 140, 40, "cd "+ws+" && EXO_HOME="+home+" "+exoBin+" attach shared --theme dark")
	scr.waitFor("the app", contains("ask, /command or !shell"))
	scr.waitFor("the watcher count", contains("◉1"))
	out, errs, code := exoEnv(t, home, ws, nil, "run", "--session", id, "write me a hello script")
	if code != 0 {
		t.Fatalf("exo run: %s", errs)
	}
	if !strings.Contains(out, "scripted demo model") {
		t.Fatalf("exo run printed %q", out)
	}
	scr.waitFor("the other shell's answer on the app's screen", contains("scripted demo model, not a real one"))
	scr.waitFor("its prompt too", contains("write me a hello script"))
	scr.keys("C-q")
}

// TestTwoAppsOneSession attaches two apps to one session: a prompt typed in one streams in both,
// the approval it needs shows in both, the first answer wins and the other app closes its
// question; quitting with the turn running asks whether to keep it, and a kept turn goes on.
func TestTwoAppsOneSession(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	if _, errs, code := run(t, home, "model", "register", "demo", "--provider", "scripted"); code != 0 {
		t.Fatal(errs)
	}
	exoEnv(t, home, ws, nil, "init")
	if _, errs, code := exoEnv(t, home, ws, nil, "compile"); code != 0 {
		t.Fatal(errs)
	}
	mustRunIn(t, home, ws, "new", "--name", "pair")
	a := startTmux(t, 140, 40, "cd "+ws+" && EXO_HOME="+home+" "+exoBin+" attach pair --theme dark")
	b := startTmux(t, 140, 40, "cd "+ws+" && EXO_HOME="+home+" "+exoBin+" attach pair --theme light")
	a.waitFor("app A", contains("◉2"))
	a.waitFor("the session loaded in A", contains(" pair │"))
	b.waitFor("app B", contains("◉2"))
	a.keys("write me a hello script", "Enter")
	b.waitFor("A's prompt in B", contains("write me a hello script"))
	a.waitFor("the approval in A", contains("Approve tool call?"))
	b.waitFor("the approval in B, taking keys", contains("y approve once")) // keys wait a moment after it opens
	b.keys("y")
	a.waitFor("A's question closed by B's answer", func(s string) bool {
		return !strings.Contains(s, "Approve tool call?") && strings.Contains(s, "approval answered")
	})
	a.waitFor("the answer in A", contains("scripted demo model, not a real one"))
	b.waitFor("the answer in B", contains("scripted demo model, not a real one"))
	if _, err := os.Stat(filepath.Join(ws, "hello.py")); err != nil {
		t.Fatal("hello.py was not written")
	}
	a.keys("C-q")
	b.keys("C-q")
}

// mustRunIn runs exo in dir and fails the test on a non-zero exit.
func mustRunIn(t *testing.T, home, dir string, args ...string) string {
	t.Helper()
	out, errs, code := exoEnv(t, home, dir, nil, args...)
	if code != 0 {
		t.Fatalf("exo %v: exit %d: %s", args, code, errs)
	}
	return out
}

// TestQuitKeepsTurnRunning quits the app while its turn waits on the model: the app asks, k
// keeps the turn running in the daemon, the app leaves, and the turn ends there on its own.
func TestQuitKeepsTurnRunning(t *testing.T) {
	t.Parallel()
	srv := providertest.NewScriptedChat(providertest.ChatReply{Hang: true})
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	exoEnv(t, home, ws, nil, "model", "register", "slow", "--provider", "openai-compatible", "--base-url", srv.BaseURL())
	id := strings.TrimSpace(mustRunIn(t, home, ws, "new", "--name", "keeper"))
	scr := startTmux(t, 120, 36, "cd "+ws+" && EXO_HOME="+home+" "+exoBin+" attach keeper --theme dark; sleep 60")
	scr.waitFor("the session loaded", contains(" keeper │"))
	scr.keys("take your time", "Enter")
	deadline := time.Now().Add(20 * time.Second)
	for len(srv.Requests()) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the model was never called; screen:\n%s", scr.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
	scr.keys("C-q")
	scr.waitFor("the quit question", contains("Leave exo?"))
	scr.keys("k")
	scr.waitFor("the app gone", func(s string) bool { return !strings.Contains(s, "ask, /command or !shell") })
	if out, _, _ := exoEnv(t, home, ws, nil, "sessions", "--json"); !strings.Contains(out, `"running": true`) {
		t.Fatalf("the kept turn is not running:\n%s", out)
	}
	srv.SetReplies(providertest.ChatReply{Text: "finished without anyone watching"})
	srv.Release()
	deadline = time.Now().Add(20 * time.Second)
	for {
		log, _, _ := exoEnv(t, home, ws, nil, "log", id)
		if strings.Contains(log, "model.failed") || strings.Contains(log, "model.completed") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the kept turn never ended:\n%s", log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// daemonStatus is what `exo daemon status --json` says.
type daemonStatus struct {
	Running bool
	Daemon  struct {
		Pid   int
		Build string
	}
	Activity struct{ Watchers int }
}

// statusBy runs `daemon status --json` with the exo binary bin.
func statusBy(t *testing.T, bin, home string) daemonStatus {
	t.Helper()
	var st daemonStatus
	out, _ := exec.Command(bin, "--home", home, "daemon", "status", "--json").Output()
	if err := json.Unmarshal(out, &st); err != nil {
		t.Fatalf("daemon status: %v %q", err, out)
	}
	return st
}

// TestOnlyNewerBuildReplacesIdleDaemon runs two real builds of exo on one EXO_HOME. The other
// build (its time is its binary's, -buildvcs=false) set older than this one is served by this
// build's idle daemon and never replaces it; set newer, it does not replace the daemon while a
// client follows it, and does once the daemon is idle, with the sessions intact; this build,
// now the older, is then served by the newer daemon instead of replacing it back.
func TestOnlyNewerBuildReplacesIdleDaemon(t *testing.T) {
	t.Parallel()
	other := filepath.Join(t.TempDir(), "exo-other")
	if out, err := exec.Command("go", "build", "-buildvcs=false", "-ldflags", "-X main.buildTag=other", "-o", other, "exo").CombinedOutput(); err != nil {
		t.Fatalf("build another exo: %v %s", err, out)
	}
	setBuilt := func(at time.Time) {
		if err := os.Chtimes(other, at, at); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	mustRun(t, home, "new", "--name", "kept")
	defer exec.Command(other, "--home", home, "daemon", "stop").Run()
	sessionsBy := func(bin string) string {
		t.Helper()
		out, err := exec.Command(bin, "--home", home, "sessions").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "kept") {
			t.Fatalf("%s sessions: %v %s", filepath.Base(bin), err, out)
		}
		return string(out)
	}
	first := statusBy(t, exoBin, home)

	setBuilt(time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC))
	sessionsBy(other)
	if st := statusBy(t, exoBin, home); st.Daemon.Pid != first.Daemon.Pid {
		t.Fatalf("an older build replaced the daemon: %+v, was %+v", st.Daemon, first.Daemon)
	}

	setBuilt(time.Now().Add(time.Hour))
	tail := exec.Command(exoBin, "--home", home, "tail", "kept", "-n", "0")
	if err := tail.Start(); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, home, "the tail followed", func(st daemonStatus) bool { return st.Activity.Watchers == 1 })
	sessionsBy(other)
	if st := statusBy(t, exoBin, home); st.Daemon.Pid != first.Daemon.Pid {
		t.Fatalf("a newer build replaced a daemon a client follows: %+v, was %+v", st.Daemon, first.Daemon)
	}
	tail.Process.Kill()
	tail.Wait()
	waitStatus(t, home, "the tail gone", func(st daemonStatus) bool { return st.Activity.Watchers == 0 })

	sessionsBy(other)
	after := statusBy(t, other, home)
	if after.Daemon.Pid == 0 || after.Daemon.Pid == first.Daemon.Pid || after.Daemon.Build == first.Daemon.Build {
		t.Fatalf("daemon before %+v, after %+v: the newer build did not replace the idle daemon", first.Daemon, after.Daemon)
	}
	sessionsBy(exoBin)
	if st := statusBy(t, exoBin, home); st.Daemon.Pid != after.Daemon.Pid {
		t.Fatalf("the older build replaced the newer daemon back: %+v, was %+v", st.Daemon, after.Daemon)
	}
	if pids := daemonPids(t, home); len(pids) != 1 {
		t.Fatalf("daemons: %v", pids)
	}
}

// waitStatus polls this build's daemon status until cond holds.
func waitStatus(t *testing.T, home, what string, cond func(daemonStatus) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := statusBy(t, exoBin, home)
		if cond(st) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s: %+v", what, st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
