package e2e

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"exo/harness/provider/providertest"
)

// streamRun is one `exo run` of the 160k-delta answer: its wall time and the CPU time of the
// processes on its path (the exo run process, and the daemon's share when there is one).
type streamRun struct{ wall, cpu time.Duration }

// BenchmarkStreamVsInProcess interleaves, in random order in each iteration, one `exo run` of an
// answer of 160k one-character deltas by the build before the daemon (in process; its binary in
// EXO_INPROC_BIN, e.g. built from 35db9b0) and by this build through the daemon to 1 and to 4
// clients (3 exo tail followers). It reports the wall time of each and the CPU time of the
// processes that carry the answer (exo run, plus the daemon): on a loaded machine wall times
// swing with the scheduler, CPU time shows the work each path does.
func BenchmarkStreamVsInProcess(b *testing.B) {
	old := os.Getenv("EXO_INPROC_BIN")
	if old == "" {
		b.Skip("set EXO_INPROC_BIN to an exo built before the daemon (git worktree add … 35db9b0; go build)")
	}
	srv := providertest.NewChatServer(160_000, "x")
	defer srv.Close()
	register := func(bin, home string) {
		cmd := exec.Command(bin, "--home", home, "model", "register", "local", "--provider", "openai-compatible", "--model-id", "bench", "--base-url", srv.BaseURL())
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
	}
	oldHome, home, ws := b.TempDir(), b.TempDir(), b.TempDir()
	register(old, oldHome)
	stopDaemonAtEnd(b, home)
	register(exoBin, home)
	runs := map[string][]streamRun{}
	variants := []string{"inprocess", "daemon-1", "daemon-4"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, v := range rand.Perm(len(variants)) {
			name := variants[v]
			// Every run is the first turn of a new session, made before the clock starts.
			switch name {
			case "inprocess":
				id := newSession(b, old, oldHome, ws)
				runs[name] = append(runs[name], timedRun(b, old, oldHome, ws, 0, "run", "--session", id, "go"))
			case "daemon-1":
				id := newSession(b, exoBin, home, ws)
				runs[name] = append(runs[name], timedRun(b, exoBin, home, ws, daemonOf(b, home), "run", "--session", id, "go"))
			case "daemon-4":
				id := newSession(b, exoBin, home, ws)
				tails := startWatchers(b, home, id, 3)
				runs[name] = append(runs[name], timedRun(b, exoBin, home, ws, daemonOf(b, home), "run", "--session", id, "go"))
				tails.stop()
			}
		}
	}
	b.StopTimer()
	for _, name := range variants {
		var wall, cpu time.Duration
		for _, r := range runs[name] {
			wall += r.wall
			cpu += r.cpu
		}
		b.ReportMetric(wall.Seconds()/float64(b.N), name+"-s")
		b.ReportMetric(cpu.Seconds()/float64(b.N), name+"-cpu-s")
		var walls []string
		for _, r := range runs[name] {
			walls = append(walls, r.wall.Round(10*time.Millisecond).String()+"/"+r.cpu.Round(10*time.Millisecond).String())
		}
		b.Logf("%s wall/cpu: %s", name, strings.Join(walls, " "))
	}
}

// daemonOf returns the pid of home's daemon (started if none runs).
func daemonOf(b *testing.B, home string) int {
	benchExo(b, home, "", "sessions")
	pid := procByArgs("daemon", "--home "+home)
	if pid == 0 {
		b.Fatal("no daemon")
	}
	return pid
}

// timedRun runs exo and checks the answer arrived whole; daemon, when not 0, is a process whose
// CPU time during the run counts too.
func timedRun(b *testing.B, bin, home, dir string, daemon int, args ...string) streamRun {
	b.Helper()
	cmd := exec.Command(bin, append([]string{"--home", home}, args...)...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	d0 := cpuMs(daemon)
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %v: %v %s", bin, args, err, errb.String())
	}
	wall := time.Since(start)
	if got := strings.Count(out.String(), "x"); got != 160_000 {
		b.Fatalf("%s streamed %d deltas", bin, got)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if daemon != 0 {
		cpu += time.Duration((cpuMs(daemon) - d0) * float64(time.Millisecond))
	}
	return streamRun{wall: wall, cpu: cpu}
}

// newSession makes a session with bin and returns its id.
func newSession(b *testing.B, bin, home, dir string) string {
	b.Helper()
	cmd := exec.Command(bin, "--home", home, "new")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("%s new: %v", bin, err)
	}
	return strings.TrimSpace(string(out))
}
