// Package failpoint lets tests kill exo with SIGKILL at a chosen step of a multi-step
// operation, to prove that the next run recovers. It is compiled into every build and inert
// unless EXO_FAILPOINT names a point. It sits under store, the lowest layer, so that store,
// sandbox and harness can all reach it; it imports nothing of exo.
//
// EXO_FAILPOINT is a comma-separated list of points. A point named alone kills exo itself; a
// point followed by "/group" kills exo's whole process group (exo and the git or shell children
// it is running, as a terminal's kill of the job would). "NAME#N" fires on the Nth time the
// point is reached (default the first); "NAME@DURATION" waits that long after reaching it
// (to land in the middle of what a child process is doing).
package failpoint

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Env is the environment variable naming the points to fire.
const Env = "EXO_FAILPOINT"

// point is one configured failpoint.
type point struct {
	group bool
	nth   int
	seen  int
	delay time.Duration
}

var (
	once   sync.Once
	mu     sync.Mutex
	points map[string]*point
)

// load parses EXO_FAILPOINT once.
func load() {
	spec := os.Getenv(Env)
	if spec == "" {
		return
	}
	points = map[string]*point{}
	for _, f := range strings.Split(spec, ",") {
		f = strings.TrimSpace(f)
		p := &point{nth: 1}
		if name, ok := strings.CutSuffix(f, "/group"); ok {
			f, p.group = name, true
		}
		if name, d, ok := strings.Cut(f, "@"); ok {
			if v, err := time.ParseDuration(d); err == nil {
				f, p.delay = name, v
			}
		}
		if name, n, ok := strings.Cut(f, "#"); ok {
			if v, err := strconv.Atoi(n); err == nil && v > 0 {
				f, p.nth = name, v
			}
		}
		points[f] = p
	}
}

// Enabled reports whether name is configured (cheap: one map lookup after the first call).
func Enabled(name string) bool {
	once.Do(load)
	if points == nil {
		return false
	}
	mu.Lock()
	defer mu.Unlock()
	return points[name] != nil
}

// Hit kills the process (or its group) with SIGKILL when name is configured and reached for
// the configured time; otherwise it does nothing.
func Hit(name string) {
	once.Do(load)
	if points == nil {
		return
	}
	mu.Lock()
	p := points[name]
	fire := false
	if p != nil {
		p.seen++
		fire = p.seen == p.nth
	}
	mu.Unlock()
	if !fire {
		return
	}
	time.Sleep(p.delay)
	os.Stderr.WriteString("exo: failpoint " + name + ": killed\n")
	if p.group && syscall.Getpgrp() == os.Getpid() { // only a group exo leads, never its parent's
		_ = syscall.Kill(0, syscall.SIGKILL)
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way
}
