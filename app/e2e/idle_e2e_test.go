package e2e

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestIdleAppDoesNotWake opens the app on a session whose answer has finished and checks that,
// once it has drawn it, the app's process does not run at all: over a 2 s window its threads
// make no context switch (a process that never runs makes none). Bubble Tea's renderer used to
// tick at the frame rate for the program's whole life, about 170 switches a second with nothing
// to draw; exo's patched copy (app/internal/bubbletea) ticks only while there is something to
// draw. The app may take a while to settle (the end of the turn's fade, the daemon's replies),
// so the test waits for one quiet window; it fails when none comes in 60 s.
func TestIdleAppDoesNotWake(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("needs Linux's /proc")
	}
	home, ws := t.TempDir(), t.TempDir()
	mustRun(t, home, "model", "register", "demo", "--provider", "scripted")
	if _, errs, code := exoEnv(t, home, ws, nil, "run", "write me a hello script"); code != 0 {
		t.Fatalf("exo run: exit %d: %s", code, errs)
	}
	scr := startTmux(t, 160, 45, "cd "+ws+" && EXO_HOME="+home+" exec "+exoBin)
	scr.waitFor("the finished answer", contains("not a real one"))
	pid, err := strconv.Atoi(strings.TrimSpace(scr.tmux("display", "-p", "-t", "e2e", "#{pane_pid}")))
	if err != nil {
		t.Fatal(err)
	}

	const window = 2 * time.Second
	deadline := time.Now().Add(60 * time.Second)
	var seen []int
	for {
		before, err := contextSwitches(pid)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(window) // the window measured, not a wait for an event
		after, err := contextSwitches(pid)
		if err != nil {
			t.Fatal(err)
		}
		if after-before == 0 {
			return
		}
		seen = append(seen, after-before)
		if time.Now().After(deadline) {
			t.Fatalf("the idle app never stayed asleep for %v: context switches per window %v; screen:\n%s", window, seen, scr.screen())
		}
	}
}

// contextSwitches is the number of context switches (voluntary and not) of every thread of pid
// and of the processes below it but exo's daemon, which the app may have started.
func contextSwitches(pid int) (int, error) {
	n := 0
	todo := []int{pid}
	for len(todo) > 0 {
		p := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		if err != nil {
			return 0, fmt.Errorf("the app's process %d: %w", p, err)
		}
		if strings.Contains(string(cmdline), "daemon") {
			continue
		}
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", p))
		if err != nil {
			return 0, fmt.Errorf("the app's threads: %w", err)
		}
		for _, task := range tasks {
			dir := fmt.Sprintf("/proc/%d/task/%s/", p, task.Name())
			status, err := os.ReadFile(dir + "status")
			if err != nil {
				continue // the thread ended
			}
			for _, line := range strings.Split(string(status), "\n") {
				if k, v, ok := strings.Cut(line, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
					c, err := strconv.Atoi(strings.TrimSpace(v))
					if err != nil {
						return 0, fmt.Errorf("%sstatus: %q: %w", dir, line, err)
					}
					n += c
				}
			}
			children, _ := os.ReadFile(dir + "children")
			for _, f := range strings.Fields(string(children)) {
				if c, err := strconv.Atoi(f); err == nil {
					todo = append(todo, c)
				}
			}
		}
	}
	return n, nil
}
