package e2e

import (
	"strings"
	"testing"
)

// TestCLILogJSONShowsShellText: exo log --json prints & < > as themselves, not \u0026 \u003c
// \u003e; only the printing changes, so the stored events still verify against their hashes.
func TestCLILogJSONShowsShellText(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	const text = "run make && ./app > out.txt 2>&1 < in.txt"
	id := strings.TrimSpace(mustRun(t, home, "new", "--name", "t"))
	mustRun(t, home, "say", "t", text)
	for _, args := range [][]string{{"log", "t", "--json"}, {"log", "--json", id}} {
		out := mustRun(t, home, args...)
		if !strings.Contains(out, text) || strings.Contains(out, `\u00`) {
			t.Fatalf("exo %v:\n%s", args, out)
		}
	}
	if out := mustRun(t, home, "verify"); !strings.HasPrefix(out, "ok: ") {
		t.Fatalf("exo verify: %s", out)
	}
}
