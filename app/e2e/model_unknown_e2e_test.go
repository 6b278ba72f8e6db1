package e2e

import (
	"strings"
	"testing"
)

// TestRunUnknownModelListsRegistered: exo run --model with a name that is not registered,
// while models are, says the model is unknown and lists the registered names (the default
// marked) and how to register one, not "No model is registered yet"; with none registered it
// still says how to start.
func TestRunUnknownModelListsRegistered(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	if _, errs, code := exoEnv(t, home, ws, nil, "run", "--model", "nosuchmodel", "hi"); code != 2 || !strings.Contains(errs, "No model is registered yet") {
		t.Fatalf("with no model: exit %d %q", code, errs)
	}
	for _, n := range []string{"alpha", "beta", "gamma"} {
		mustRunIn(t, home, ws, "model", "register", n, "--provider", "scripted")
	}
	_, errs, code := exoEnv(t, home, ws, nil, "run", "--model", "nosuchmodel", "hi")
	if code != 2 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(errs, "No model is registered yet") {
		t.Fatalf("says no model is registered while three are:\n%s", errs)
	}
	for _, want := range []string{`Unknown model "nosuchmodel"`, "alpha (default), beta, gamma", "exo model register NAME"} {
		if !strings.Contains(errs, want) {
			t.Fatalf("no %q in:\n%s", want, errs)
		}
	}
}
