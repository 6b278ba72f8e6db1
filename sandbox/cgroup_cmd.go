package sandbox

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cgroupProcs lists the processes in the cgroup dir (not below it).
func cgroupProcs(dir string) []int {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range bytes.Fields(b) {
		if pid, err := strconv.Atoi(string(f)); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// killCgroupWait bounds how long killCgroup keeps at a cgroup whose processes keep forking.
const killCgroupWait = 5 * time.Second

// killCgroup kills every process in the cgroup dir and waits until it is empty (or
// killCgroupWait passed): with cgroup.kill where the kernel has it (cgroup v2, 5.14), else by
// SIGKILLing what cgroup.procs lists until it lists nothing; processes that fork meanwhile are
// caught by the next round, and the pids cap bounds how many there can be. It returns how many
// processes it signalled (0 with cgroup.kill, which does not say).
func killCgroup(dir string) int {
	if os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0o644) == nil {
		waitEmpty(dir, killCgroupWait)
		return 0
	}
	n := 0
	deadline := time.Now().Add(killCgroupWait)
	for time.Now().Before(deadline) {
		pids := cgroupProcs(dir)
		if len(pids) == 0 {
			return n
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGSTOP) // stopped first, so none forks while the others die
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		n += len(pids)
		time.Sleep(5 * time.Millisecond)
	}
	return n
}

// waitEmpty waits until the cgroup dir has no processes or d passed.
func waitEmpty(dir string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for len(cgroupProcs(dir)) > 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// cgroupCounter reads the counter key of a flat-keyed cgroup file ("max 3", "oom_kill 1").
func cgroupCounter(path, key string) uint64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), " "); ok && k == key {
			n, _ := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// pidsRefused counts the forks refused by the pids cap of the cgroup dir.
func pidsRefused(dir string) uint64 { return cgroupCounter(filepath.Join(dir, "pids.events"), "max") }

// oomKills counts the processes the kernel killed for the memory cap of the cgroup dir.
func oomKills(dir string) uint64 {
	if isV2(dir) {
		return cgroupCounter(filepath.Join(dir, "memory.events"), "oom_kill")
	}
	return cgroupCounter(filepath.Join(dir, "memory.oom_control"), "oom_kill")
}

// moveToCgroup moves process pid into the cgroup dir.
func moveToCgroup(pid int, dir string) error {
	return os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644)
}

// killCgroups kills what is left in the cgroups the helper command cmd joined and in the
// per-command cgroups below them (a process that left the shell's session is still there).
func killCgroups(cmd *exec.Cmd) {
	for _, dir := range cgroupOf(cmd) {
		subs, _ := os.ReadDir(dir)
		for _, s := range subs {
			if s.IsDir() {
				killCgroup(filepath.Join(dir, s.Name()))
			}
		}
		if len(cgroupProcs(dir)) > 0 {
			killCgroup(dir)
		}
	}
}
