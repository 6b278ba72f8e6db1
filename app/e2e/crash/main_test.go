package crash

import (
	"testing"

	"exo/app/e2e/exobuild"
)

// exoBin is the exo binary built once for these tests.
var exoBin string

func TestMain(m *testing.M) { exobuild.Main(m, "crash", &exoBin) }

// exoEnv runs exo with EXO_HOME=home in dir, with extra environment, and returns stdout,
// stderr and the exit code.
func exoEnv(t *testing.T, home, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	return exobuild.Run(t, exoBin, home, dir, env, "", args...)
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
