package sandbox

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// procInfo is what the kill sweep needs from /proc/PID/stat.
type procInfo struct {
	pid, ppid, pgrp, sid int
}

// listProcs reads every process's parent, group and session from /proc.
func listProcs() []procInfo {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make([]procInfo, 0, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readStat(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// readStat parses /proc/PID/stat, whose command name may contain spaces and parentheses.
func readStat(pid int) (procInfo, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procInfo{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 4 {
		return procInfo{}, false
	}
	atoi := func(s []byte) int { n, _ := strconv.Atoi(string(s)); return n }
	return procInfo{pid: pid, ppid: atoi(f[1]), pgrp: atoi(f[2]), sid: atoi(f[3])}, true
}

// descendants returns the processes below root, plus every other process in root's
// session or in the given process groups; root itself is excluded.
func descendants(root int, pgrps ...int) []int {
	procs := listProcs()
	children := map[int][]int{}
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p.pid)
	}
	seen := map[int]bool{root: true}
	var out []int
	var walk func(int)
	walk = func(pid int) {
		for _, c := range children[pid] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
				walk(c)
			}
		}
	}
	walk(root)
	for _, p := range procs {
		inGroup := false
		for _, g := range pgrps {
			inGroup = inGroup || p.pgrp == g
		}
		if !seen[p.pid] && (p.sid == root || inGroup) {
			seen[p.pid] = true
			out = append(out, p.pid)
			walk(p.pid)
		}
	}
	return out
}

// nsMembers returns the other processes in root's PID namespace when root runs in a
// namespace of its own (as the sandbox's pid 1); a process there cannot escape by
// daemonizing, unlike with sessions and parents.
func nsMembers(root int) []int {
	ns, err := os.Readlink("/proc/" + strconv.Itoa(root) + "/ns/pid")
	if err != nil {
		return nil
	}
	if self, err := os.Readlink("/proc/self/ns/pid"); err != nil || self == ns {
		return nil
	}
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == root {
			continue
		}
		if l, err := os.Readlink("/proc/" + e.Name() + "/ns/pid"); err == nil && l == ns {
			out = append(out, pid)
		}
	}
	return out
}

// killTree SIGKILLs everything below root (see descendants, nsMembers) and reports how many it signalled.
func killTree(root int, pgrps ...int) int {
	pids := append(descendants(root, pgrps...), nsMembers(root)...)
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	return len(pids)
}

// statState returns the one-letter state of pid.
func statState(pid int) (byte, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0, false
	}
	return b[i+2], true
}

// procStart returns when pid started (in clock ticks since boot), 0 when it is gone: with the
// pid, it names one process however long after, when the pid may have been reused.
func procStart(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 {
		return 0
	}
	n, _ := strconv.ParseUint(string(f[19]), 10, 64)
	return n
}
