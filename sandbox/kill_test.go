package sandbox

import (
	"context"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	p, ok := readStat(pid)
	return ok && p.pid == pid && !isZombie(pid)
}

// isZombie reports whether pid is a zombie waiting to be reaped.
func isZombie(pid int) bool {
	st, ok := statState(pid)
	return ok && st == 'Z'
}

// pidsIn parses whitespace-separated pids from output.
func pidsIn(t *testing.T, s string) []int {
	var out []int
	for _, f := range strings.Fields(s) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no pids in %q", s)
	}
	return out
}

// waitGone waits until none of pids is alive.
func waitGone(t *testing.T, pids []int) {
	deadline := time.Now().Add(3 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("pid %d still alive", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func TestTimeoutKillsGrandchildren(t *testing.T) {
	sh := newTestShell(t, testConfig(t))
	cmd := `bash -c 'sleep 300 & echo $!; setsid sleep 301 & echo $!; sleep 302' & echo $!; sleep 303 & echo $!; wait`
	r := run(t, sh, cmd, RunOptions{Timeout: 500 * time.Millisecond})
	if !r.Killed || !strings.HasPrefix(r.KillReason, "timeout") {
		t.Fatalf("not killed by timeout: %+v", r)
	}
	waitGone(t, pidsIn(t, r.Output))
	if r := run(t, sh, "echo still-here", RunOptions{}); r.Output != "still-here\n" || r.Restarted {
		t.Fatalf("shell not usable after timeout: %+v", r)
	}
}

func TestTimeoutStopsTTYReaders(t *testing.T) {
	sh := newTestShell(t, testConfig(t))
	run(t, sh, "cd /; export KEEP=1", RunOptions{})
	for _, cmd := range []string{
		"read -r pw </dev/tty; echo got $pw",                  // a password prompt
		"printf '\\033[?1049h'; stty raw -echo; cat /dev/tty", // a full-screen program in raw mode
		`bash -c "trap '' INT; sleep 300"`,                    // ignores Ctrl-C
		"while :; do sleep 0.01; done",                        // a shell loop
	} {
		r := run(t, sh, cmd, RunOptions{Timeout: 300 * time.Millisecond})
		if !r.Killed {
			t.Fatalf("%s: not killed: %+v", cmd, r)
		}
		after := run(t, sh, "echo $KEEP $PWD", RunOptions{})
		if after.Output != "1 /\n" || after.Restarted {
			t.Fatalf("%s: shell state lost: %+v", cmd, after)
		}
	}
}

func TestCancelKillsCommand(t *testing.T) {
	sh := newTestShell(t, testConfig(t))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	r, err := sh.Run(ctx, "sleep 300", RunOptions{})
	if err != nil || !r.Killed || r.KillReason != "cancelled" {
		t.Fatalf("cancel: %+v %v", r, err)
	}
}

func TestShellExitRestarts(t *testing.T) {
	sh := newTestShell(t, testConfig(t))
	run(t, sh, "export A=1", RunOptions{})
	r := run(t, sh, "exit 3", RunOptions{})
	if r.ExitCode != 3 || len(r.Notes) == 0 {
		t.Fatalf("exit: %+v", r)
	}
	r = run(t, sh, "echo A=$A", RunOptions{})
	if !r.Restarted || r.Output != "A=\n" {
		t.Fatalf("restart not reported: %+v", r)
	}
}

func TestWedgedShellIsReplaced(t *testing.T) {
	sh := newTestShell(t, testConfig(t))
	r := run(t, sh, "trap '' INT; while :; do :; done", RunOptions{Timeout: 300 * time.Millisecond})
	if !r.Killed {
		t.Fatalf("not killed: %+v", r)
	}
	r = run(t, sh, "echo ok", RunOptions{})
	if r.Output != "ok\n" {
		t.Fatalf("after wedge: %+v", r)
	}
}
