package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExoHomeInsideWorkspaceE2E: exo run in the home folder with exo's home at its default
// ~/.exo (the workspace holds exo's key, database and shadow repositories): exo new warns, the
// snapshots settle (each snapshot wrote the shadow repository, which the watcher took for a
// change: 831 MB in 5 minutes in the audit), no object of any shadow repository holds the key,
// no snapshot names a path under .exo, and a fork (made in ~/.exo/workspaces, inside the
// workspace) works and holds nothing of exo's home.
func TestExoHomeInsideWorkspaceE2E(t *testing.T) {
	t.Parallel()
	home, _ := defaultHome(t)
	ws := home
	out, errs, code := exoAt(t, home, ws, "new", "--name", "inhome")
	if code != 0 || !strings.Contains(errs, "warning") || !strings.Contains(errs, ".exo") {
		t.Fatalf("exo new: exit %d, stderr %q", code, errs)
	}
	id := strings.TrimSpace(out)
	for i, cmd := range []string{"echo one > a.txt", "echo two >> a.txt", "mkdir -p src && echo x > src/x.txt"} {
		if _, errs, code := exoAt(t, home, ws, "exec", id, "--", cmd); code != 0 {
			t.Fatalf("exec %d: %s", i, errs)
		}
	}
	snapshots := func() int {
		log, _, _ := exoAt(t, home, ws, "log", id)
		return strings.Count(log, "workspace.snapshot")
	}
	// The count must hold still for 5 s (the watcher reports after 0.4 s); a runaway never does.
	last, since := snapshots(), time.Now()
	for deadline := time.Now().Add(90 * time.Second); time.Since(since) < 5*time.Second; time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("snapshots never settled: %d and counting", last)
		}
		if n := snapshots(); n != last {
			last, since = n, time.Now()
		}
	}
	key, err := os.ReadFile(filepath.Join(home, ".exo", "secret.key"))
	if err != nil || len(key) < 16 {
		t.Fatalf("no key to search for: %v", err)
	}
	shadows, _ := filepath.Glob(filepath.Join(home, ".exo", "shadow", "*.git"))
	if len(shadows) == 0 {
		t.Fatal("no shadow repository: the test proves nothing")
	}
	for _, sh := range shadows {
		objs, err := exec.Command("git", "--git-dir", sh, "cat-file", "--batch-all-objects", "--batch").Output()
		if err != nil {
			t.Fatalf("cat-file %s: %v", sh, err)
		}
		if bytes.Contains(objs, key) {
			t.Fatalf("the secret key is in the shadow repository %s", sh)
		}
		names, _ := exec.Command("git", "--git-dir", sh, "log", "--all", "--name-only", "--format=").Output()
		if strings.Contains(string(names), ".exo/") || !strings.Contains(string(names), "a.txt") {
			t.Fatalf("snapshot paths: %s", names)
		}
	}
	if _, errs, code := exoAt(t, home, ws, "fork", id, "--name", "side"); code != 0 {
		t.Fatalf("fork: %s", errs)
	}
	list, _, _ := exoAt(t, home, ws, "sessions", "--json")
	var sessions []struct{ Name, Workspace string }
	json.Unmarshal([]byte(list), &sessions)
	for _, s := range sessions {
		if s.Name != "side" {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(s.Workspace, "a.txt")); err != nil || string(b) != "one\ntwo\n" {
			t.Fatalf("the fork's a.txt: %q %v", b, err)
		}
		if _, err := os.Lstat(filepath.Join(s.Workspace, ".exo")); !os.IsNotExist(err) {
			t.Fatalf("the fork holds exo's home: %v", err)
		}
		return
	}
	t.Fatalf("no fork in %s", list)
}
