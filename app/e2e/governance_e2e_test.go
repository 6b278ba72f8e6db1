package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitAndCompileAsANewUserMeetsThem runs exo init on a Go folder without go.mod (the
// sources say Go, a note says why no check was guessed), exo compile with "." as its DIR, and a
// constitution with a YAML syntax error and a semantic one: each is reported at line:column.
func TestInitAndCompileAsANewUserMeetsThem(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := exoEnv(t, home, ws, nil, "init")
	if code != 0 || !strings.Contains(out, "(go)") || strings.Contains(out, "unknown language") ||
		!strings.Contains(errs, "no go.mod: run 'go mod init NAME'") {
		t.Fatalf("init: exit %d\n%s%s", code, out, errs)
	}
	if _, errs, code := exoEnv(t, home, ws, nil, "compile", "."); code != 0 {
		t.Fatalf("compile .: exit %d: %s", code, errs)
	}
	constitution := filepath.Join(ws, ".exo", "constitution.yaml")
	for src, want := range map[string]string{
		"version: 1\nproject: a: b\n":                        "constitution.yaml:2:11: mapping values are not allowed in this context",
		"version: 1\nchecks:\n  - name: t\n    timeout: 5\n": `constitution.yaml:4:5: unknown key "timeout" in check`,
	} {
		if err := os.WriteFile(constitution, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, errs, code := exoEnv(t, home, ws, nil, "compile"); code != 1 || !strings.Contains(errs, want) {
			t.Errorf("compile of %q: exit %d, want 1 and %q in:\n%s", src, code, want, errs)
		}
	}
}
