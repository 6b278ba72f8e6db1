package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSnapshotSkipsFolderSwappedWhileStaging: between git status and git update-index an agent's
// process swaps a folder of new files for a link to a folder of secrets. The snapshot does not
// fail: it records the link as the workspace holds it (not its target's files; it used to leave
// the folder out as racing, which kept a folder replaced by a link in every later snapshot, so a
// rewind never put it back), takes the other changes, holds nothing from outside, and the next
// snapshot takes what is there then.
func TestSnapshotSkipsFolderSwappedWhileStaging(t *testing.T) {
	ws := newRepo(t)
	outside := t.TempDir()
	for _, n := range []string{"k0", "k1", "k2"} {
		write(t, outside, n, "OUTSIDE-SECRET\n")
		write(t, ws, "d/"+n, "decoy\n")
	}
	write(t, ws, "b/ok.txt", "taken\n")
	write(t, ws, "z.txt", "taken too\n")
	snap, err := NewSnapshotter(ws, ShadowDir(t.TempDir(), ws), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	swapped := 0
	snap.afterStatus = func() {
		swapped++
		if err := os.Rename(filepath.Join(ws, "d"), filepath.Join(ws, "d.real")); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(outside, filepath.Join(ws, "d")); err != nil {
			t.Error(err)
		}
	}
	s, err := snap.Snapshot()
	if err != nil {
		t.Fatalf("the snapshot failed: %v", err)
	}
	snap.afterStatus = nil
	if swapped != 1 {
		t.Fatalf("the swap ran %d times", swapped)
	}
	if len(s.Skipped) != 0 {
		t.Fatalf("skipped: %+v", s.Skipped)
	}
	for _, c := range s.Changed {
		if strings.HasPrefix(c.Path, "d/") {
			t.Fatalf("a path beneath the link is reported as changed: %+v", s.Changed)
		}
	}
	if !treeHas(t, snap.git.gitDir, s.Commit, "d") || treeHas(t, snap.git.gitDir, s.Commit, "d/k0") {
		t.Fatal("the snapshot does not hold the link d alone")
	}
	if !treeHas(t, snap.git.gitDir, s.Commit, "b/ok.txt") || !treeHas(t, snap.git.gitDir, s.Commit, "z.txt") {
		t.Fatal("the other changes were not taken")
	}
	if out, _ := snap.git.run(nil, "grep", "-l", "OUTSIDE-SECRET", s.Commit); len(out) > 0 {
		t.Fatalf("the snapshot holds a file from outside: %s", out)
	}
	next, err := snap.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if !treeHas(t, snap.git.gitDir, next.Commit, "d.real/k0") || !treeHas(t, snap.git.gitDir, next.Commit, "d") {
		t.Fatal("the next snapshot did not take the moved folder and the link")
	}
	if out, _ := snap.git.run(nil, "grep", "-l", "OUTSIDE-SECRET", next.Commit); len(out) > 0 {
		t.Fatalf("the next snapshot holds a file from outside: %s", out)
	}
}
