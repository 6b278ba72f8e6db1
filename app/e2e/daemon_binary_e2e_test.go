package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"exo/app/e2e/exobuild"
)

// daemonExe returns the executable home's daemon logged when it started (its last start).
func daemonExe(t *testing.T, home string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "daemon.log"))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(b, []byte(" exe="))
	if i < 0 {
		t.Fatalf("the daemon's log names no executable:\n%s", b)
	}
	exe, _, _ := strings.Cut(string(b[i+len(" exe="):]), "\n")
	return exe
}

// TestDaemonRunsFromItsOwnBinary: with exo-daemon beside exo-full (README's build), the daemon
// exo-full starts is exo-daemon, and a relayed `exo run` of the demo (whose bash step runs
// exo-daemon again as the sandbox's helper) answers through it.
func TestDaemonRunsFromItsOwnBinary(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	mustRun(t, home, "model", "register", "demo", "--provider", "scripted")
	if got, want := daemonExe(t, home), filepath.Join(filepath.Dir(exoBin), "exo-daemon"); got != want {
		t.Fatalf("the daemon runs %s, want %s", got, want)
	}
	out, errs, code := exoEnv(t, home, ws, nil, "run", "--model", "demo", "--yes", "write me a hello script")
	if code != 0 || !strings.Contains(out, "scripted demo model") {
		t.Fatalf("exo run: exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(ws, "hello.py")); err != nil {
		t.Fatalf("the demo's tool steps did not run through exo-daemon: %v", err)
	}
}

// TestDaemonBinaryOfAnotherBuild: an exo-daemon that is not of exo-full's build (it says
// another build, or exits without a word) is not used: exo-full runs the daemon itself and the
// command works; one that reports a real error has that error shown.
func TestDaemonBinaryOfAnotherBuild(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, script, wantErr string
	}{
		{"another build", "printf 'other-build\\tabc\\n' >&3; exit 1", ""},
		{"silent", "exit 0", ""},
		{"an error", "printf 'error: \\tthe store is on fire\\n' >&3; exit 1", "the store is on fire"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir, home := t.TempDir(), t.TempDir()
			for _, name := range []string{"exo", "exo-full"} {
				if err := os.Link(filepath.Join(filepath.Dir(exoBin), name), filepath.Join(dir, name)); err != nil {
					t.Skipf("cannot link the binaries into a test folder: %v", err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, "exo-daemon"), []byte("#!/bin/sh\n"+c.script+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			thin := filepath.Join(dir, "exo")
			t.Cleanup(func() { exobuild.StopDaemon(thin, home) })
			cmd := exec.Command(thin, "sessions")
			cmd.Env = append(os.Environ(), "EXO_HOME="+home)
			out, err := cmd.CombinedOutput()
			if c.wantErr != "" {
				if err == nil || !strings.Contains(string(out), c.wantErr) {
					t.Fatalf("exo sessions: %v\n%s", err, out)
				}
				return
			}
			if err != nil {
				t.Fatalf("exo sessions: %v\n%s", err, out)
			}
			if got, want := daemonExe(t, home), filepath.Join(dir, "exo-full"); got != want {
				t.Fatalf("the daemon runs %s, want %s", got, want)
			}
		})
	}
}
