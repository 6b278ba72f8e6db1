package sandbox

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestMain lets the test binary act as the confinement helper, as exo's main.go does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == HelperCommand {
		os.Exit(HelperMain(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == probeCommand {
		os.Exit(probeMain(os.Args[2:]))
	}
	if dir := os.Getenv(watchParentEnv); dir != "" {
		os.Exit(watchParentMain(dir))
	}
	os.Exit(m.Run())
}

var (
	capsOnce sync.Once
	hostCaps Capabilities
)

// testCaps probes the host once per test binary.
func testCaps() Capabilities {
	capsOnce.Do(func() { hostCaps = Probe() })
	return hostCaps
}

// testConfig returns a config with a fresh workspace and tmp dir, using the test binary as helper.
func testConfig(t testing.TB) Config {
	dir := t.TempDir()
	ws, tmp := filepath.Join(dir, "ws"), filepath.Join(dir, "tmp")
	for _, d := range []string{ws, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// EXO_SANDBOX_TEST_FS and EXO_SANDBOX_TEST_SHELL let CI rerun the suite with a forced
	// confinement mode (landlock, mountns, none) or shell (sh).
	return Config{
		Workspace: ws, TmpDir: tmp, Helper: []string{os.Args[0], HelperCommand}, Fallback: RunUnconfined,
		Filesystem: FSMode(os.Getenv("EXO_SANDBOX_TEST_FS")), Shell: os.Getenv("EXO_SANDBOX_TEST_SHELL"),
	}
}

// newTestShell starts a shell for cfg and closes it at the end of the test.
func newTestShell(t testing.TB, cfg Config) *Shell {
	t.Helper()
	sh, err := NewShell(cfg, testCaps())
	if err != nil {
		t.Fatalf("new shell: %v", err)
	}
	t.Cleanup(func() { sh.Close() })
	return sh
}
