package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// shadowGit runs git on a snapshotter's shadow repository and index, as exo does.
func shadowGit(t testing.TB, s *Snapshotter, args ...string) string {
	t.Helper()
	out, err := s.git.run(nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// A snapshot whose status shows nothing staged reuses the latest tree, but an index that
// differs from the latest snapshot (an earlier snapshot staged it and died before committing)
// must still be written and committed: status's index column tells them apart.
func TestSnapshotIndexAheadOfSnapshotIsCommitted(t *testing.T) {
	t.Parallel()
	ws := newRepo(t)
	snap, err := NewSnapshotter(ws, ShadowDir(t.TempDir(), ws), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { snap.Close() })
	a, err := snap.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	write(t, ws, "late.txt", "staged, never committed\n")
	shadowGit(t, snap, "add", "--", "late.txt") // the index now holds late.txt, the ref does not
	b, err := snap.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if b.Commit == a.Commit || b.Tree == a.Tree {
		t.Fatalf("the staged file was not committed: %+v after %+v", b, a)
	}
	if got, ok, err := snap.FileAt(b.Commit, "late.txt"); err != nil || !ok || string(got) != "staged, never committed\n" {
		t.Fatalf("late.txt in the snapshot: %q %v %v", got, ok, err)
	}
	// Nothing changed since: the next snapshot is the same commit, its tree the index's.
	c, err := snap.Snapshot()
	if err != nil || c.Commit != b.Commit || len(c.Changed) != 0 {
		t.Fatalf("unchanged snapshot: %+v %v", c, err)
	}
	if tree := strings.TrimSpace(shadowGit(t, snap, "write-tree")); tree != c.Tree {
		t.Fatalf("reused tree %s, index writes %s", c.Tree, tree)
	}
}

// Opening a configured shadow repository again runs no git at all (it is on the path of every
// new session); a marker that does not match, or a HEAD moved away, configures it again.
func TestSnapshotterReopenConfiguresOnce(t *testing.T) {
	ws := newRepo(t)
	dir := ShadowDir(t.TempDir(), ws)
	first, err := NewSnapshotter(ws, dir, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := first.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	first.Close()

	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir()) // no git to run
	again, err := NewSnapshotter(ws, dir, SnapshotOptions{})
	if err != nil {
		t.Fatalf("reopening a configured shadow repository ran git: %v", err)
	}
	again.Close()
	if _, err := NewSnapshotter(ws, dir, SnapshotOptions{LooseObjectLimit: 7}); err == nil {
		t.Fatal("other settings were not written (no git was run)")
	}
	t.Setenv("PATH", filepath.Dir(git))

	for name, damage := range map[string]func(){
		"marker cut":  func() { os.WriteFile(filepath.Join(dir, configuredFile), []byte("core.bare=false\n"), 0o644) },
		"marker gone": func() { os.Remove(filepath.Join(dir, configuredFile)) },
		"HEAD moved":  func() { os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644) },
		"config wiped": func() {
			os.WriteFile(filepath.Join(dir, "config"), nil, 0o644)
			os.Remove(filepath.Join(dir, configuredFile))
		},
	} {
		damage()
		s, err := NewSnapshotter(ws, dir, SnapshotOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := strings.TrimSpace(shadowGit(t, s, "config", "core.fsync")); got != "committed" {
			t.Fatalf("%s: core.fsync %q", name, got)
		}
		if got := strings.TrimSpace(shadowGit(t, s, "symbolic-ref", "HEAD")); got != snapshotRef {
			t.Fatalf("%s: HEAD %q", name, got)
		}
		b, err := s.Snapshot()
		if err != nil || b.Commit != a.Commit || len(b.Changed) != 0 {
			t.Fatalf("%s: snapshot after reconfiguring: %+v %v", name, b, err)
		}
		s.Close()
	}
}
