package sandbox

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// run runs a command and fails the test on error.
func run(t testing.TB, sh *Shell, cmd string, opts RunOptions) Result {
	t.Helper()
	r, err := sh.Run(context.Background(), cmd, opts)
	if err != nil {
		t.Fatalf("run %q: %v", cmd, err)
	}
	return r
}

func TestShellPersistsState(t *testing.T) {
	sh := newTestShell(t, testConfig(t))
	run(t, sh, "mkdir -p sub/dir && cd sub/dir", RunOptions{})
	run(t, sh, "export FOO=bar; greet() { echo \"hi $1\"; }", RunOptions{})
	r := run(t, sh, `pwd; echo "$FOO"; greet you`, RunOptions{})
	lines := strings.Split(strings.TrimSpace(r.Output), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[0], "/ws/sub/dir") || lines[1] != "bar" || lines[2] != "hi you" {
		t.Fatalf("state not kept: %q", r.Output)
	}
	if r.ExitCode != 0 || r.Killed || r.Restarted {
		t.Fatalf("unexpected result: %+v", r)
	}
}

func TestShellExitCodes(t *testing.T) {
	sh := newTestShell(t, testConfig(t))
	for cmd, want := range map[string]int{"true": 0, "false": 1, "(exit 42)": 42, "nosuchcommand-xyz": 127} {
		if r := run(t, sh, cmd, RunOptions{}); r.ExitCode != want {
			t.Errorf("%s: exit %d, want %d (%q)", cmd, r.ExitCode, want, r.Output)
		}
	}
}

func TestShellStdinIsEOF(t *testing.T) {
	sh := newTestShell(t, testConfig(t))
	r := run(t, sh, "cat; read x; echo read=$?", RunOptions{Timeout: 5 * time.Second})
	if r.Killed || !strings.Contains(r.Output, "read=1") {
		t.Fatalf("stdin not at EOF: %+v", r)
	}
}

func TestShellEnvIsClean(t *testing.T) {
	t.Setenv("EXO_TEST_SECRET", "hunter2")
	cfg := testConfig(t)
	cfg.Env = map[string]string{"EXTRA": "yes"}
	sh := newTestShell(t, cfg)
	r := run(t, sh, "env", RunOptions{})
	if strings.Contains(r.Output, "hunter2") || !strings.Contains(r.Output, "EXTRA=yes") || !strings.Contains(r.Output, "TERM=xterm-256color") {
		t.Fatalf("environment: %s", r.Output)
	}
}

func TestConcurrentRunsAreSerialised(t *testing.T) {
	sh := newTestShell(t, testConfig(t))
	run(t, sh, "true", RunOptions{})
	errs := make(chan error, 2)
	for i := range 2 {
		go func() {
			r, err := sh.Run(context.Background(), fmt.Sprintf("echo start-%d; sleep 0.2; echo end-%d", i, i), RunOptions{})
			if err == nil && r.Output != fmt.Sprintf("start-%d\nend-%d\n", i, i) {
				err = fmt.Errorf("interleaved output: %q", r.Output)
			}
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	started := make(chan struct{})
	go sh.Run(context.Background(), "echo started; sleep 0.5", RunOptions{Stream: signalWriter(started)})
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := sh.Run(ctx, "true", RunOptions{}); err == nil {
		t.Fatal("a cancelled wait for a busy shell should fail")
	}
}

func TestResizeSeenByPrograms(t *testing.T) {
	sh := newTestShell(t, testConfig(t))
	run(t, sh, "true", RunOptions{})
	if err := sh.Resize(30, 100); err != nil {
		t.Fatal(err)
	}
	if r := run(t, sh, "stty size </dev/tty", RunOptions{}); r.Output != "30 100\n" {
		t.Fatalf("size: %q", r.Output)
	}
}

func TestShellSurvivesRedirectedStdout(t *testing.T) {
	sh := newTestShell(t, testConfig(t))
	r := run(t, sh, "exec 3>&1 >/dev/null; echo hidden", RunOptions{Timeout: 5 * time.Second})
	if r.Killed || r.Output != "" || r.ExitCode != 0 {
		t.Fatalf("redirected: %+v", r)
	}
	if r := run(t, sh, "exec >&3; echo back", RunOptions{Timeout: 5 * time.Second}); r.Output != "back\n" || r.Restarted {
		t.Fatalf("after restoring stdout: %+v", r)
	}
}

// signalWriter closes ch on the first write.
type signalWriter chan struct{}

func (w signalWriter) Write(p []byte) (int, error) {
	select {
	case <-w:
	default:
		close(w)
	}
	return len(p), nil
}
