package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDBChangedUnderDaemonReads: exo.db changed under a running daemon by copying another
// database into it in place, or by cutting it, makes the next read command (exo sessions, not
// only a write) fail saying what happened and what to do; never an empty list, never a panic.
func TestDBChangedUnderDaemonReads(t *testing.T) {
	t.Parallel()
	otherHome := t.TempDir()
	mustRun(t, otherHome, "new", "--name", "other")
	mustRun(t, otherHome, "daemon", "stop")
	otherDB, _ := os.ReadFile(filepath.Join(otherHome, "exo.db"))
	for name, change := range map[string]func(path string){
		"another database copied in": func(path string) { os.WriteFile(path, otherDB, 0o600) },
		"truncated":                  func(path string) { os.Truncate(path, 0) },
	} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			mustRun(t, home, "new", "--name", "live")
			mustRun(t, home, "sessions")
			change(filepath.Join(home, "exo.db"))
			out, errs, code := run(t, home, "sessions")
			if code == 0 || !strings.Contains(errs, "not the file exo opened") || !strings.Contains(errs, "exo daemon stop") ||
				strings.Contains(errs, "panic") || strings.Contains(errs, "nil pointer") {
				t.Fatalf("exo sessions after the change: exit %d\n%s\n%s", code, out, errs)
			}
		})
	}
}
