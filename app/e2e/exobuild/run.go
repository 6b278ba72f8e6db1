package exobuild

import (
	"bytes"
	"os"
	"os/exec"
	"sync"
	"testing"
)

// Main builds exo into a temporary folder, sets *bin to the thin exo, runs the package's tests
// with a short daemon idle time (a daemon a test leaves behind goes away soon by itself),
// removes the folder and exits with the tests' code. An end-to-end package's TestMain is
// `exobuild.Main(m, "NAME", &exoBin)`.
func Main(m *testing.M, name string, bin *string) {
	dir, err := os.MkdirTemp("", "exo-"+name+"-bin-")
	if err != nil {
		panic(err)
	}
	if *bin, err = Build(dir); err != nil {
		panic(err)
	}
	os.Setenv("EXO_DAEMON_IDLE", "20s")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// daemonHomes remembers, per test, the homes whose daemon the test's end stops.
var daemonHomes sync.Map

// StopDaemonAtEnd stops home's daemon when t ends, before t.TempDir removes home (once per test
// and home).
func StopDaemonAtEnd(t testing.TB, bin, home string) {
	if _, seen := daemonHomes.LoadOrStore(t.Name()+"\x00"+home, true); seen {
		return
	}
	t.Cleanup(func() { StopDaemon(bin, home) })
}

// StopDaemon stops home's daemon, if one runs.
func StopDaemon(bin, home string) {
	cmd := exec.Command(bin, "--home", home, "daemon", "stop")
	cmd.Env = append(os.Environ(), "EXO_HOME="+home)
	_ = cmd.Run()
}

// Run runs bin with EXO_HOME=home in dir ("" the test's), with extra environment and stdin,
// and returns its stdout, stderr and exit code; home's daemon is stopped when t ends.
func Run(t testing.TB, bin, home, dir string, env []string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	StopDaemonAtEnd(t, bin, home)
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "EXO_HOME="+home), env...)
	if stdin != "" {
		cmd.Stdin = bytes.NewBufferString(stdin)
	}
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
