package crash

import (
	"bytes"
	"os"
	"os/exec"
	"sync"
	"testing"

	"exo/app/e2e/exobuild"
)

// exoBin is the exo binary built once for these tests.
var exoBin string

// stopped remembers, per test, the homes whose daemon the test's end stops.
var stopped sync.Map

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "exo-crash-bin-")
	if err != nil {
		panic(err)
	}
	if exoBin, err = exobuild.Build(dir); err != nil {
		panic(err)
	}
	os.Setenv("EXO_DAEMON_IDLE", "20s") // a daemon a test leaves behind goes away soon by itself
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// exoEnv runs exo with EXO_HOME=home in dir, with extra environment, and returns stdout,
// stderr and the exit code.
func exoEnv(t *testing.T, home, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	if _, seen := stopped.LoadOrStore(t.Name()+"\x00"+home, true); !seen {
		t.Cleanup(func() { stopDaemon(t, home) })
	}
	cmd := exec.Command(exoBin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "EXO_HOME="+home), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// run runs exo in the current directory.
func run(t *testing.T, home string, args ...string) (string, string, int) {
	t.Helper()
	return exoEnv(t, home, "", nil, args...)
}

// mustRun runs exo and fails on a non-zero exit.
func mustRun(t *testing.T, home string, args ...string) string {
	t.Helper()
	out, errs, code := run(t, home, args...)
	if code != 0 {
		t.Fatalf("exo %v: exit %d: %s", args, code, errs)
	}
	return out
}
