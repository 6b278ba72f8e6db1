package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The attacks of issue 28 items 4 and 9, as an agent's commands would make them: a fork bomb, a
// memory bomb, processes detached from the command, and a temp dir filled past its quota. Each is
// bounded (caps far below the machine's, deadlines) so that it can run beside other work; run
// them alone with -run 'Bomb|Detach|TmpQuota'.

// capped returns a test config with small caps.
func capped(t *testing.T) Config {
	cfg := testConfig(t)
	cfg.Limits.Processes = 64
	cfg.Limits.Memory = 256 << 20
	cfg.Limits.TmpSize = 8 << 20
	return cfg
}

// needCgroup skips the test where this machine gives exo no writable cgroup of ctl's.
func needCgroup(t *testing.T, base string, ctl string) {
	if base == "" {
		t.Skipf("no writable %s cgroup here: the cap is RLIMIT-only", ctl)
	}
}

func TestForkBombEndsWithItsCommand(t *testing.T) {
	needCgroup(t, testCaps().PidsCgroup, "pids")
	sh := newTestShell(t, capped(t))
	start := time.Now()
	r := run(t, sh, `b(){ b|b& }; b; sleep 1`, RunOptions{Timeout: 20 * time.Second})
	// The bomb may still be growing when its command returns: the watcher must kill it soon.
	deadline := time.Now().Add(10 * time.Second)
	for running := true; running; {
		running = false
		for _, d := range sh.Detached() {
			running = running || d.Running()
		}
		if time.Now().After(deadline) {
			t.Fatalf("the bomb still runs 10s after its command: %+v", sh.Detached())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := len(cgroupProcsBelow(sh)); n > 0 {
		t.Fatalf("%d processes left in the sandbox's cgroups after the bomb", n)
	}
	killed := strings.Contains(strings.Join(r.Notes, "\n"), "process cap")
	for _, d := range sh.Detached() {
		killed = killed || strings.Contains(d.KillReason, "fork bomb")
	}
	if !killed {
		t.Fatalf("the bomb was not reported: %+v, %+v", r, sh.Detached())
	}
	// The next command forks normally.
	if r := run(t, sh, `for i in 1 2 3 4 5; do (true) & done; wait; echo forked`, RunOptions{Timeout: 10 * time.Second}); !strings.Contains(r.Output, "forked") || r.ExitCode != 0 {
		t.Fatalf("the next command could not fork: %+v", r)
	}
	t.Logf("bomb ended in %s; notes %q", time.Since(start).Round(time.Millisecond), r.Notes)
}

// cgroupProcsBelow lists the processes in the shell's per-command cgroups.
func cgroupProcsBelow(sh *Shell) []int {
	sh.mu.Lock()
	p := sh.proc
	sh.mu.Unlock()
	if p == nil {
		return nil
	}
	var out []int
	dir := p.cgroupUnder(sh.enf.PidsCgroup)
	subs, _ := os.ReadDir(dir)
	for _, s := range subs {
		if s.IsDir() {
			out = append(out, cgroupProcs(filepath.Join(dir, s.Name()))...)
		}
	}
	return out
}

func TestDetachedProcessesListedAndEndWithTurn(t *testing.T) {
	sh := newTestShell(t, testConfig(t))
	cmds := []string{"setsid sleep 1001 &", "nohup sleep 1002 >/dev/null 2>&1 &", "( sleep 1003 & )"}
	for _, c := range cmds {
		r := run(t, sh, c, RunOptions{Timeout: 10 * time.Second})
		if r.ExitCode != 0 || !strings.Contains(strings.Join(r.Notes, "\n"), "end with the turn") {
			t.Fatalf("%s: %+v", c, r)
		}
	}
	list := sh.Detached()
	if len(list) != len(cmds) {
		t.Fatalf("listed %d detached groups, want %d: %+v", len(list), len(cmds), list)
	}
	var pids []int
	for i, d := range list {
		if !d.Running() || d.Command != cmds[i] || len(d.Pids) == 0 {
			t.Fatalf("detached %d: %+v", i, d)
		}
		pids = append(pids, d.Pids...)
	}
	killed, err := sh.EndTurn()
	if err != nil || len(killed) != len(cmds) {
		t.Fatalf("end turn: %v, killed %+v", err, killed)
	}
	for _, pid := range pids {
		if st, ok := statState(pid); ok && st != 'Z' {
			t.Fatalf("pid %d (state %c) survived the end of the turn", pid, st)
		}
	}
	if out, _ := exec.Command("pgrep", "-f", "sleep 100[123]").Output(); len(out) > 0 {
		t.Fatalf("sleeps survived: %s", out)
	}
	if len(sh.Detached()) != 0 {
		t.Fatalf("ended groups still listed: %+v", sh.Detached())
	}
}

func TestMemoryBombStoppedByCap(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	cfg := capped(t)
	sh := newTestShell(t, cfg)
	// 1 GiB asked for, 256 MiB allowed: the cgroup's OOM killer (or RLIMIT_AS's MemoryError) ends it.
	r := run(t, sh, `python3 -c "b = bytearray(1 << 30); b[::4096] = b'x' * len(b[::4096]); print('ALLOCATED')"`, RunOptions{Timeout: 60 * time.Second})
	if strings.Contains(r.Output, "ALLOCATED") || r.ExitCode == 0 {
		t.Fatalf("1 GiB allocated under a 256 MiB cap: %+v", r)
	}
	notes := strings.Join(r.Notes, "\n")
	if sh.enf.MemCgroup != "" && !strings.Contains(notes, "memory cap (256MiB) was reached") {
		t.Fatalf("no clear message: exit %d, notes %q, output %q", r.ExitCode, r.Notes, r.Output)
	}
	if sh.enf.MemCgroup == "" && !strings.Contains(r.Output, "MemoryError") {
		t.Fatalf("no MemoryError under RLIMIT_AS: %+v", r)
	}
	if r := run(t, sh, "echo alive", RunOptions{}); !strings.Contains(r.Output, "alive") {
		t.Fatalf("the shell did not survive: %+v", r)
	}
	t.Logf("exit %d, notes %q", r.ExitCode, r.Notes)
}

func TestTmpQuotaBoundsTheHomeDisk(t *testing.T) {
	cfg := capped(t)
	sh := newTestShell(t, cfg)
	before := du(t, cfg.TmpDir)
	r := run(t, sh, `head -c 64M /dev/zero > "$TMPDIR/fill"; echo "status=$?"; ls -l "$TMPDIR/fill" | awk '{print "size=" $5}'`, RunOptions{Timeout: 30 * time.Second})
	if !strings.Contains(r.Output, "status=1") && !strings.Contains(r.Output, "status=153") {
		t.Fatalf("writing 64 MiB into an 8 MiB tmp did not fail: %+v", r)
	}
	if !strings.Contains(r.Output, "No space left on device") && !strings.Contains(r.Output, "File too large") {
		t.Fatalf("no clear message: %q", r.Output)
	}
	if got := du(t, cfg.TmpDir); got > before+(1<<20) {
		t.Fatalf("the tmp dir on exo's disk grew by %d bytes", got-before)
	}
	if _, err := sh.EndTurn(); err != nil {
		t.Fatal(err)
	}
	if r := run(t, sh, `ls -A "$TMPDIR"`, RunOptions{}); strings.Contains(r.Output, "fill") {
		t.Fatalf("the file stayed after the turn: %q", r.Output)
	}
	// Emptying the tmp dir leaves the workspace and the shell's control folder in place, though
	// both may be mounted inside the tmpfs's folders (a workspace under /tmp).
	r = run(t, sh, `echo kept > after.txt && echo ok`, RunOptions{})
	if b, err := os.ReadFile(filepath.Join(cfg.Workspace, "after.txt")); err != nil || string(b) != "kept\n" || !strings.Contains(r.Output, "ok") {
		t.Fatalf("the workspace or the shell broke after the tmp dir was emptied: %+v %q %v", r, b, err)
	}
	ents, _ := os.ReadDir(cfg.TmpDir)
	for _, e := range ents {
		if e.Name() != ctlDirName {
			t.Fatalf("left on disk: %s", e.Name())
		}
	}
	t.Logf("enforcement: %s; output %q", sh.Enforcement(), r.Output)
}

// du sums the sizes of the files under dir on disk.
func du(t *testing.T, dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

func TestMachineLimitsFitTheMachine(t *testing.T) {
	l := MachineLimits(t.TempDir())
	if l.Processes < minProcs || l.Processes > maxProcs || l.Memory < minMemory || l.TmpSize < minTmp || l.TmpSize > maxTmp {
		t.Fatalf("limits out of bounds: %+v", l)
	}
	if mt := memTotal(); mt > 0 && l.Memory > max(mt/2, minMemory) {
		t.Fatalf("memory cap %d above half of %d", l.Memory, mt)
	}
	e := Enforcement{Limits: Limits{Processes: 7, Memory: 1 << 30, CPUWeight: 50, TmpSize: 8 << 20}, PidsCgroup: "/x", MemCgroup: "/y", CPUCgroup: "/z", TmpQuota: true}
	for _, want := range []string{"pids (cgroup)=7", "memory (cgroup)=1024MiB", "cpu weight=50/100", "tmp (tmpfs)=8MiB"} {
		if !strings.Contains(e.String(), want) {
			t.Fatalf("%q lacks %q", e.String(), want)
		}
	}
}

// shellWith starts a shell with caps reduced by less, as a machine without those would give.
func shellWith(t *testing.T, cfg Config, less func(*Capabilities)) *Shell {
	t.Helper()
	caps := testCaps()
	less(&caps)
	sh, err := NewShell(cfg, caps)
	if err != nil {
		t.Fatalf("new shell: %v", err)
	}
	t.Cleanup(func() { sh.Close() })
	return sh
}

func TestDetachedWithoutCgroups(t *testing.T) {
	sh := shellWith(t, testConfig(t), func(c *Capabilities) { c.PidsCgroup, c.MemCgroup, c.CPUCgroup = "", "", "" })
	r := run(t, sh, "setsid sleep 1011 & nohup sleep 1012 >/dev/null 2>&1 &", RunOptions{Timeout: 10 * time.Second})
	// setsid forks its sleep after the command may have ended: the group takes it in as it
	// appears (it used to be missed, and outlived the turn).
	list := sh.Detached()
	for deadline := time.Now().Add(2 * time.Second); len(list) == 1 && len(list[0].Pids) < 2 && time.Now().Before(deadline); list = sh.Detached() {
		time.Sleep(20 * time.Millisecond)
	}
	if r.Detached == "" || len(list) != 1 || len(list[0].Pids) < 1 {
		t.Fatalf("not listed without cgroups: %+v %+v", r, list)
	}
	if killed, err := sh.EndTurn(); err != nil || len(killed) != 1 {
		t.Fatalf("end turn: %+v %v", killed, err)
	}
	for _, pid := range list[0].Pids {
		if st, ok := statState(pid); ok && st != 'Z' {
			t.Fatalf("pid %d survived the turn without cgroups", pid)
		}
	}
	// Whatever was listed, nothing the command started lives on anywhere on the machine.
	deadline := time.Now().Add(2 * time.Second)
	for pids := processesNamed("sleep 1011", "sleep 1012"); len(pids) > 0; pids = processesNamed("sleep 1011", "sleep 1012") {
		if time.Now().After(deadline) {
			t.Fatalf("processes %v of the command outlived the turn without cgroups", pids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processesNamed lists the live processes whose command line is one of names.
func processesNamed(names ...string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		cmd := strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
		if slices.Contains(names, cmd) {
			if st, ok := statState(pid); ok && st != 'Z' {
				out = append(out, pid)
			}
		}
	}
	return out
}

func TestTmpQuotaWithoutMounts(t *testing.T) {
	if testCaps().LandlockABI == 0 {
		t.Skip("no landlock: without a mount namespace nothing confines writes")
	}
	cfg := capped(t)
	cfg.Filesystem = FSLandlock
	sh := shellWith(t, cfg, func(c *Capabilities) { c.MountNS, c.PidNS = false, false })
	if sh.Enforcement().TmpQuota || sh.Enforcement().Limits.FileSize != cfg.Limits.TmpSize {
		t.Fatalf("no RLIMIT_FSIZE fallback: %s", sh.Enforcement())
	}
	r := run(t, sh, `head -c 64M /dev/zero > "$TMPDIR/fill"; echo "status=$?"`, RunOptions{Timeout: 30 * time.Second})
	if !strings.Contains(r.Output, "File too large") && !strings.Contains(r.Output, "status=153") {
		t.Fatalf("a 64 MiB file under an 8 MiB RLIMIT_FSIZE: %+v", r)
	}
	if got := du(t, cfg.TmpDir); got > int64(cfg.Limits.TmpSize)+(1<<20) {
		t.Fatalf("tmp grew to %d bytes", got)
	}
	if _, err := sh.EndTurn(); err != nil {
		t.Fatal(err)
	}
	if fileExists(filepath.Join(cfg.TmpDir, "fill")) {
		t.Fatal("the file stayed after the turn")
	}
}
