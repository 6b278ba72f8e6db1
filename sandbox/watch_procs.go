package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// WatcherPIDs lists the live watcher processes following root: Watch's children, found by the
// flags this package gives them (--workspace-watch, then --root root), wherever the helper
// command puts them (a wrapper script runs before it execs the helper). The tests of every
// package that shares watchers count and kill them with it, so that the command line is known
// in one place. A process that ended and waits to be reaped has no command line and is not
// listed.
func WatcherPIDs(root string) []int {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var pids []int
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		at := slices.Index(args, watchChildArg)
		if at < 1 || !followsRoot(args[at+1:], root) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// followsRoot reports whether a watcher's flags name root as the tree it follows.
func followsRoot(flags []string, root string) bool {
	for i := 0; i+1 < len(flags); i++ {
		if flags[i] == "--root" && flags[i+1] == root {
			return true
		}
	}
	return false
}
