package e2e

import (
	"strings"
	"testing"
)

// TestOTELVariablesNotReachingTheDaemonAreSaid: a daemon started without OTEL_* variables
// runs on while a command is given some; the command says in one line that they do not reach
// it (relayed by the thin client, and run by the full exo), and says nothing without them or
// once the daemon was started with the same ones.
func TestOTELVariablesNotReachingTheDaemonAreSaid(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	mustRunIn(t, home, ws, "new", "--name", "s") // starts the daemon without OTEL_* variables
	otel := []string{"OTEL_SERVICE_NAME=exo-e2e-otel"}
	const notice = "OTEL_* variables given here do not reach the running daemon"
	for _, args := range [][]string{{"sessions"}, {"model", "ls"}} {
		_, errs, code := exoEnv(t, home, ws, otel, args...)
		if code != 0 || strings.Count(errs, notice) != 1 {
			t.Fatalf("exo %v with OTEL_SERVICE_NAME: exit %d, want the notice once:\n%s", args, code, errs)
		}
		if _, errs, _ := exoEnv(t, home, ws, nil, args...); strings.Contains(errs, notice) {
			t.Fatalf("exo %v without OTEL_* variables:\n%s", args, errs)
		}
	}
	mustRunIn(t, home, ws, "daemon", "stop")
	if _, errs, _ := exoEnv(t, home, ws, otel, "sessions"); strings.Contains(errs, notice) {
		t.Fatalf("the command started the daemon with its variables, yet:\n%s", errs)
	}
	if _, errs, _ := exoEnv(t, home, ws, otel, "model", "ls"); strings.Contains(errs, notice) {
		t.Fatalf("the daemon runs with the same variables, yet:\n%s", errs)
	}
}
