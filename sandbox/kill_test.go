package sandbox

import (
	"context"
	"fmt"
	"os"
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

// waitGone waits until none of pids is alive.
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("pid %d still alive", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// procsWithArg returns the host pids whose command line contains arg.
func procsWithArg(arg string) []int {
	var out []int
	for _, p := range listProcs() {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.pid))
		if err == nil && strings.Contains(string(b), arg) && !isZombie(p.pid) {
			out = append(out, p.pid)
		}
	}
	return out
}

// waitNoProcs waits until no live process has arg in its command line.
func waitNoProcs(t *testing.T, arg string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(procsWithArg(arg)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes with %q still alive: %v", arg, procsWithArg(arg))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestTimeoutKillsGrandchildren(t *testing.T) {
	sh := newTestShell(t, testConfig(t))
	tag := fmt.Sprintf("30%d", time.Now().UnixNano()%1000000)
	// A child with grandchildren, one in its own session, a background job, and (when the
	// PID namespace is available) a daemon that double-forks away from the shell.
	cmd := fmt.Sprintf(`bash -c 'sleep %[1]s.1 & setsid sleep %[1]s.2 & sleep %[1]s.3' & sleep %[1]s.4 & wait`, tag)
	if sh.Enforcement().PidNS {
		cmd = fmt.Sprintf(`(setsid sleep %[1]s.5 &); `, tag) + cmd
	}
	r := run(t, sh, cmd, RunOptions{Timeout: 500 * time.Millisecond})
	if !r.Killed || !strings.HasPrefix(r.KillReason, "timeout") {
		t.Fatalf("not killed by timeout: %+v", r)
	}
	waitNoProcs(t, "sleep\x00"+tag)
	// sh (dash) may first report the killed background job, which is true and harmless.
	if r := run(t, sh, "echo still-here", RunOptions{}); !strings.HasSuffix(r.Output, "still-here\n") || r.Restarted {
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
		// A command that reads the terminal gets long enough to reach its read (stty and cat
		// are started first, which took over 300 ms on a loaded CI machine); its reason is
		// only right once it waits there.
		waits := strings.Contains(cmd, "/dev/tty")
		timeout := 300 * time.Millisecond
		if waits {
			timeout = 3 * time.Second
		}
		r := run(t, sh, cmd, RunOptions{Timeout: timeout})
		if !r.Killed {
			t.Fatalf("%s: not killed: %+v", cmd, r)
		}
		if waits != strings.Contains(r.KillReason, "terminal input") {
			t.Errorf("%s: kill reason %q", cmd, r.KillReason)
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
