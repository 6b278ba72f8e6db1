package sandbox

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Bounds of the machine-derived defaults.
const (
	procsPerCore = 256     // procsPerCore processes per core: make -j and test runners fit
	minProcs     = 256     // minProcs is the least process cap on a small machine
	maxProcs     = 4096    // maxProcs is the most, however many cores
	minMemory    = 1 << 30 // minMemory is the least memory cap
	minTmp       = 64 << 20
	maxTmp       = 1 << 30
)

// MachineLimits derives the limits that must fit the machine from what it has now: the process
// cap from the cores (procsPerCore each, within minProcs..maxProcs), the memory cap at half the
// memory (at least minMemory; the daemon, the user's terminal and other users keep the rest),
// and the temp space at a tenth of the free space of tmp's filesystem and an eighth of the
// memory (a tmpfs holds its files in memory), within minTmp..maxTmp, since tmp lives under
// exo's home. tmp may be "" (then the home's disk is not looked at).
func MachineLimits(tmp string) Limits {
	l := Limits{Processes: uint64(min(max(runtime.NumCPU()*procsPerCore, minProcs), maxProcs))}
	l.Memory = max(memTotal()/2, minMemory)
	l.TmpSize = uint64(maxTmp)
	if mt := memTotal(); mt > 0 {
		l.TmpSize = min(l.TmpSize, mt/8)
	}
	var st unix.Statfs_t
	for d := tmp; d != "" && d != "/"; d = parentDir(d) {
		if unix.Statfs(d, &st) == nil {
			l.TmpSize = min(l.TmpSize, st.Bavail*uint64(st.Bsize)/10)
			break
		}
	}
	l.TmpSize = max(l.TmpSize, minTmp)
	return l
}

// parentDir returns the folder holding p.
func parentDir(p string) string {
	i := strings.LastIndexByte(strings.TrimSuffix(p, "/"), '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// memTotal reads MemTotal from /proc/meminfo in bytes (0 when unreadable).
func memTotal() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
