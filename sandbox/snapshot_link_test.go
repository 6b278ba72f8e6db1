package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRestoreFolderReplacedByLink replaces folders the first snapshot holds by links (to a
// folder outside, to a file, dangling; at the top and nested) and by a file, then restores the
// first snapshot. The snapshot in between said those folders "changed while read" and kept their
// files, so the restore skipped them and the links stayed: now every folder is back with its
// files, the links are gone, nothing outside the workspace is touched, and the snapshot before
// the restore records the links as they were.
func TestRestoreFolderReplacedByLink(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	write(t, outside, "victim.txt", "outside\n")
	for _, f := range []string{"d/f.txt", "a/b/deep.txt", "a/keep.txt", "e/g.txt", "h/i.txt", "top.txt"} {
		write(t, ws, f, "v1 "+f+"\n")
	}
	snap, err := NewSnapshotter(ws, ShadowDir(t.TempDir(), ws), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { snap.Close() })
	first, err := snap.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	replace := func(rel string, with func(string) error) {
		p := filepath.Join(ws, rel)
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
		if err := with(p); err != nil {
			t.Fatal(err)
		}
	}
	replace("d", func(p string) error { return os.Symlink(outside, p) })
	replace("a/b", func(p string) error { return os.Symlink(filepath.Join(outside, "victim.txt"), p) })
	replace("e", func(p string) error { return os.Symlink("/nonexistent/target", p) })
	replace("h", func(p string) error { return os.WriteFile(p, []byte("a file now\n"), 0o644) })
	write(t, ws, "top.txt", "v2\n")
	mid, err := snap.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if len(mid.Skipped) != 0 {
		t.Errorf("the snapshot of stable links left paths out: %+v", mid.Skipped)
	}
	tree, _ := snap.git.run(nil, "ls-tree", "-r", "--name-only", mid.Tree)
	for _, want := range []string{"d", "a/b", "e", "h", "a/keep.txt", "top.txt"} {
		if !slices.Contains(strings.Split(strings.TrimSpace(string(tree)), "\n"), want) {
			t.Errorf("the snapshot before the restore lacks %s: %q", want, tree)
		}
	}
	r, err := snap.Restore(first.Commit)
	if err != nil {
		t.Fatal(err)
	}
	checkFile(t, ws, "a/keep.txt", "v1 a/keep.txt\n")
	for _, f := range []string{"d/f.txt", "a/b/deep.txt", "e/g.txt", "h/i.txt"} {
		checkFile(t, ws, f, "v1 "+f+"\n")
		if !slices.ContainsFunc(r.Changed, func(c Change) bool { return c.Path == f }) {
			t.Errorf("the restore does not list %s: %+v", f, r.Changed)
		}
	}
	checkFile(t, ws, "top.txt", "v1 top.txt\n")
	for _, dir := range []string{"d", "a/b", "e", "h"} {
		if fi, err := os.Lstat(filepath.Join(ws, dir)); err != nil || !fi.IsDir() {
			t.Errorf("%s after the restore: %v %v, want a folder", dir, fi, err)
		}
	}
	checkFile(t, outside, "victim.txt", "outside\n")
	if es, _ := os.ReadDir(outside); len(es) != 1 {
		t.Errorf("the folder outside holds %d entries after the restore", len(es))
	}
}
