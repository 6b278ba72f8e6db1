package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"exo/harness/provider/providertest"
)

// BenchmarkCLISessionsWarmDaemon times a whole `exo sessions` process (start-up, connect,
// request, print) against a daemon that already runs, with 20 sessions in the store: the thin
// exo the daemon runs the command for, and the full exo (EXO_RELAY=0) in the same runs.
func BenchmarkCLISessionsWarmDaemon(b *testing.B) {
	home := b.TempDir()
	stopDaemonAtEnd(b, home)
	for i := 0; i < 20; i++ {
		benchExo(b, home, "", "new", "--name", fmt.Sprintf("s%d", i))
	}
	for _, mode := range []string{"thin", "full"} {
		b.Run(mode, func(b *testing.B) {
			env := relayEnv(mode)
			for i := 0; i < b.N; i++ {
				benchExoEnv(b, home, "", env, "sessions")
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/process")
		})
	}
}

// relayEnv is the environment of a benchmark's exo: thin relays to the daemon, full runs
// exo-full's own command code.
func relayEnv(mode string) []string {
	if mode == "full" {
		return []string{"EXO_RELAY=0"}
	}
	return nil
}

// BenchmarkRunTinyWarmDaemon times a whole `exo run` process on a session that exists, with a
// one-word answer from a local Chat Completions server, through a warm daemon: thin and full.
func BenchmarkRunTinyWarmDaemon(b *testing.B) {
	srv := providertest.NewChatServer(1, "ok")
	defer srv.Close()
	home, ws := b.TempDir(), b.TempDir()
	stopDaemonAtEnd(b, home)
	benchExo(b, home, ws, "model", "register", "local", "--provider", "openai-compatible", "--model-id", "bench", "--base-url", srv.BaseURL())
	id := strings.TrimSpace(benchExo(b, home, ws, "new", "--name", "tiny"))
	benchExo(b, home, ws, "run", "--session", id, "warm up")
	for _, mode := range []string{"thin", "full"} {
		b.Run(mode, func(b *testing.B) {
			env := relayEnv(mode)
			for i := 0; i < b.N; i++ {
				if out := benchExoEnv(b, home, ws, env, "run", "--session", id, "go"); !strings.Contains(out, "ok") {
					b.Fatalf("answer %q", out)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/process")
		})
	}
}

// BenchmarkStreamToClients runs `exo run` of one answer of 160k one-character deltas while 0 or
// 3 more clients (exo tail --json of the session… and apps would see the same frames) follow
// the same session: every client gets the whole stream from the daemon.
func BenchmarkStreamToClients(b *testing.B) {
	for _, extra := range []int{0, 3} {
		b.Run(fmt.Sprintf("clients=%d", extra+1), func(b *testing.B) {
			srv := providertest.NewChatServer(160_000, "x")
			defer srv.Close()
			home, ws := b.TempDir(), b.TempDir()
			stopDaemonAtEnd(b, home)
			benchExo(b, home, ws, "model", "register", "local", "--provider", "openai-compatible", "--model-id", "bench", "--base-url", srv.BaseURL())
			id := strings.TrimSpace(benchExo(b, home, ws, "new", "--name", "stream"))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				tails := startWatchers(b, home, id, extra)
				b.StartTimer()
				out := benchExo(b, home, ws, "run", "--session", id, "go")
				if got := strings.Count(out, "x"); got != 160_000 {
					b.Fatalf("streamed %d deltas", got)
				}
				b.StopTimer()
				tails.stop()
				b.StartTimer()
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/run")
		})
	}
}

// watchers are `exo attach`-like followers of a session: exo tail processes.
type watchers struct {
	cmds []*exec.Cmd
}

// startWatchers starts n followers of a session and waits until the daemon counts them.
func startWatchers(b *testing.B, home, id string, n int) *watchers {
	w := &watchers{}
	for i := 0; i < n; i++ {
		cmd := exec.Command(exoBin, "--home", home, "tail", id, "-n", "0")
		cmd.Stdout = &bytes.Buffer{}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		w.cmds = append(w.cmds, cmd)
	}
	deadline := time.Now().Add(10 * time.Second)
	for n > 0 && time.Now().Before(deadline) {
		out := benchExo(b, home, "", "sessions", "--json")
		if strings.Contains(out, `"clients": `+strconv.Itoa(n)) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return w
}

// stop ends the followers.
func (w *watchers) stop() {
	for _, c := range w.cmds {
		c.Process.Kill()
		c.Wait()
	}
}

// BenchmarkIdleCPU measures the CPU an idle daemon and an idle app (in tmux, showing a session
// of a few turns) use over 5 s with nothing happening; it reports CPU ms per 10 s of each.
func BenchmarkIdleCPU(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("tmux is not installed")
	}
	home, ws := b.TempDir(), b.TempDir()
	stopDaemonAtEnd(b, home)
	benchExo(b, home, ws, "model", "register", "demo", "--provider", "scripted")
	id := strings.TrimSpace(benchExo(b, home, ws, "new", "--name", "idle"))
	benchExo(b, home, ws, "run", "--session", id, "write me a hello script")
	sock := fmt.Sprintf("exo-idle-%d", os.Getpid())
	exec.Command("tmux", "-L", sock, "new-session", "-d", "-s", "idle", "-x", "160", "-y", "48",
		"cd "+ws+" && EXO_HOME="+home+" "+exoBin+" attach idle --theme dark").Run()
	defer exec.Command("tmux", "-L", sock, "kill-server").Run()
	time.Sleep(3 * time.Second) // the app settles: first frames, siblings, timeline
	app, daemon := procByArgs("attach", "idle"), procByArgs("daemon", "--home")
	if app == 0 || daemon == 0 {
		b.Fatalf("app pid %d, daemon pid %d", app, daemon)
	}
	b.ResetTimer()
	var appMs, daemonMs float64
	for i := 0; i < b.N; i++ {
		a0, d0 := cpuMs(app), cpuMs(daemon)
		time.Sleep(5 * time.Second)
		appMs += (cpuMs(app) - a0) * 2
		daemonMs += (cpuMs(daemon) - d0) * 2
	}
	b.ReportMetric(appMs/float64(b.N), "app-cpu-ms/10s")
	b.ReportMetric(daemonMs/float64(b.N), "daemon-cpu-ms/10s")
}

// procByArgs finds a process whose command line holds both words (0 when none).
func procByArgs(a, b string) int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		raw, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		cl := strings.ReplaceAll(string(raw), "\x00", " ")
		full := filepath.Join(filepath.Dir(exoBin), "exo-full") // the daemon and the app run the full exo
		if (strings.HasPrefix(cl, exoBin+" ") || strings.HasPrefix(cl, full+" ")) && strings.Contains(cl, " "+a+" ") && strings.Contains(cl, " "+b) {
			pid, _ := strconv.Atoi(filepath.Base(d))
			return pid
		}
	}
	return 0
}

// cpuMs reads a process's user+system CPU time in milliseconds.
func cpuMs(pid int) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) * 1000 / 100 // clock ticks of 10 ms
}

// benchExo runs exo and returns its stdout, failing the benchmark on a non-zero exit.
func benchExo(b *testing.B, home, dir string, args ...string) string {
	b.Helper()
	return benchExoEnv(b, home, dir, nil, args...)
}

// benchExoEnv is benchExo with more environment.
func benchExoEnv(b *testing.B, home, dir string, env []string, args ...string) string {
	b.Helper()
	cmd := exec.Command(exoBin, append([]string{"--home", home}, args...)...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		b.Fatalf("exo %v: %v %s", args, err, errb.String())
	}
	return out.String()
}
