package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// write creates a file with content under dir, making parents.
func write(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// userGit runs the user's own git in dir (no shadow env) and returns its output.
func userGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return string(out)
}

// newRepo makes a user repository with one commit and some uncommitted state.
func newRepo(t testing.TB) string {
	ws := filepath.Join(t.TempDir(), "repo")
	write(t, ws, "keep.txt", "keep\n")
	write(t, ws, "edit.txt", "v1\n")
	write(t, ws, "gone.txt", "soon deleted\n")
	write(t, ws, "old-name.txt", "rename me, long enough content for rename detection\n")
	write(t, ws, ".gitignore", "*.log\n")
	write(t, ws, "dir/nested.txt", "nested\n")
	os.Symlink("keep.txt", filepath.Join(ws, "link"))
	userGit(t, ws, "init", "-q", "-b", "main")
	userGit(t, ws, "add", "-A")
	userGit(t, ws, "commit", "-qm", "init")
	write(t, ws, "staged.txt", "staged\n")
	userGit(t, ws, "add", "staged.txt")
	write(t, ws, "debug.log", "ignored v1\n")
	return ws
}

// userState captures the user's git HEAD, index and status.
func userState(t testing.TB, ws string) string {
	return userGit(t, ws, "rev-parse", "HEAD") + userGit(t, ws, "status", "--porcelain=v1", "--ignored") +
		userGit(t, ws, "ls-files", "--stage")
}

func TestSnapshotRestoreRoundTrip(t *testing.T) {
	ws := newRepo(t)
	write(t, ws, "node_modules/pkg/index.js", "dep\n")
	write(t, ws, "big.bin", strings.Repeat("x", 5000))
	write(t, ws, "nested/file.txt", "inside another repository\n")
	userGit(t, filepath.Join(ws, "nested"), "init", "-q")
	before := userState(t, ws)
	snap, err := NewSnapshotter(ws, ShadowDir(t.TempDir(), ws), SnapshotOptions{MaxFileSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { snap.Close() })
	s1, err := snap.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := snap.git.line("ls-tree", "-r", "--name-only", s1.Commit)
	if strings.Contains(files, ".git/") || !strings.Contains(files, "staged.txt") || strings.Contains(files, "debug.log") {
		t.Fatalf("snapshot files:\n%s", files)
	}
	if !hasSkipped(s1.Skipped, "big.bin") || !hasSkipped(s1.Skipped, "node_modules/") || !hasSkipped(s1.Skipped, "nested/") {
		t.Fatalf("skipped: %+v", s1.Skipped)
	}
	if userState(t, ws) != before {
		t.Fatalf("user repo changed by snapshot:\n%s\nvs\n%s", before, userState(t, ws))
	}
	// Change everything, as a shell command would.
	write(t, ws, "edit.txt", "v2\n")
	os.Remove(filepath.Join(ws, "gone.txt"))
	os.Rename(filepath.Join(ws, "old-name.txt"), filepath.Join(ws, "new-name.txt"))
	write(t, ws, "created.txt", "new\n")
	write(t, ws, "newdir/deep/file.txt", "deep\n")
	os.Remove(filepath.Join(ws, "link"))
	os.Symlink("edit.txt", filepath.Join(ws, "link"))
	os.Symlink("dir", filepath.Join(ws, "dirlink"))
	write(t, ws, "debug.log", "ignored v2\n")
	s2, err := snap.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	wantChanges := []Change{
		{Path: "created.txt", Kind: Added}, {Path: "dirlink", Kind: Added}, {Path: "edit.txt", Kind: Modified},
		{Path: "gone.txt", Kind: Deleted}, {Path: "link", Kind: Modified},
		{Path: "new-name.txt", From: "old-name.txt", Kind: Renamed}, {Path: "newdir/deep/file.txt", Kind: Added},
	}
	if !slices.Equal(sortChanges(s2.Changed), wantChanges) {
		t.Fatalf("changes: %+v", s2.Changed)
	}
	restored, err := snap.Restore(s1.Commit)
	if err != nil {
		t.Fatal(err)
	}
	if restored.Tree != s1.Tree || restored.Parent != s2.Commit {
		t.Fatalf("restored snapshot: %+v (s1 %s s2 %s)", restored, s1.Tree, s2.Commit)
	}
	checkFile(t, ws, "edit.txt", "v1\n")
	checkFile(t, ws, "gone.txt", "soon deleted\n")
	checkFile(t, ws, "old-name.txt", "rename me, long enough content for rename detection\n")
	checkFile(t, ws, "debug.log", "ignored v2\n")
	checkFile(t, ws, "node_modules/pkg/index.js", "dep\n")
	checkFile(t, ws, "big.bin", strings.Repeat("x", 5000))
	checkFile(t, ws, "nested/file.txt", "inside another repository\n")
	for _, gone := range []string{"created.txt", "new-name.txt", "newdir", "dirlink"} {
		if _, err := os.Lstat(filepath.Join(ws, gone)); err == nil {
			t.Errorf("%s should be removed", gone)
		}
	}
	if target, _ := os.Readlink(filepath.Join(ws, "link")); target != "keep.txt" {
		t.Errorf("link -> %q", target)
	}
	if after := userState(t, ws); after != before {
		t.Fatalf("user repo changed:\n%s\nvs\n%s", before, after)
	}
	// Restoring forward again works too.
	if _, err := snap.Restore(s2.Commit); err != nil {
		t.Fatal(err)
	}
	checkFile(t, ws, "newdir/deep/file.txt", "deep\n")
}

func TestSnapshotUnchangedIsNoop(t *testing.T) {
	ws := newRepo(t)
	snap, err := NewSnapshotter(ws, ShadowDir(t.TempDir(), ws), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { snap.Close() })
	a, _ := snap.Snapshot()
	if head, tree := snap.Head(); head != a.Commit || tree != a.Tree {
		t.Fatalf("head %s %s vs %+v", head, tree, a)
	}
	b, err := snap.Snapshot()
	if err != nil || a.Commit != b.Commit || len(b.Changed) != 0 {
		t.Fatalf("second snapshot: %+v %v", b, err)
	}
}

// hasSkipped reports whether path is among skipped.
func hasSkipped(skipped []SkippedFile, path string) bool {
	return slices.ContainsFunc(skipped, func(s SkippedFile) bool { return s.Path == path })
}

// sortChanges orders changes by path.
func sortChanges(c []Change) []Change {
	slices.SortFunc(c, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return c
}

// checkFile fails unless rel under dir has the content.
func checkFile(t testing.TB, dir, rel, want string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil || string(b) != want {
		t.Errorf("%s: %q, %v; want %q", rel, b, err, want)
	}
}

func TestSnapshotChangesMatchDiffAndSurviveBadIndex(t *testing.T) {
	ws := newRepo(t)
	snap, err := NewSnapshotter(ws, ShadowDir(t.TempDir(), ws), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { snap.Close() })
	if _, err := snap.Snapshot(); err != nil {
		t.Fatal(err)
	}
	steps := []func(){
		func() { write(t, ws, "edit.txt", "changed\n"); write(t, ws, "brand-new.txt", "x\n") },
		func() {
			os.Remove(filepath.Join(ws, "keep.txt"))
			os.Remove(filepath.Join(ws, "link"))
			write(t, ws, "link", "now a file\n")
		},
		func() {
			os.WriteFile(snap.git.index, []byte("garbage"), 0o644)
			write(t, ws, "dir/nested.txt", "after a damaged index\n")
		},
	}
	for i, step := range steps {
		step()
		s, err := snap.Snapshot()
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		diffed, _ := snap.diff(s.Parent, s.Commit)
		if !slices.Equal(sortChanges(s.Changed), sortChanges(diffed)) {
			t.Fatalf("step %d: changes %+v, diff-tree says %+v", i, s.Changed, diffed)
		}
	}
}

func TestRestorePathsOnlyTouchesThosePaths(t *testing.T) {
	ws := newRepo(t)
	snap, err := NewSnapshotter(ws, ShadowDir(t.TempDir(), ws), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { snap.Close() })
	s1, err := snap.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	outside := outsideDir(t)
	write(t, outside, "victim.txt", "must survive\n")
	write(t, ws, "edit.txt", "out of scope edit\n")
	write(t, ws, "keep.txt", "in scope edit\n")
	write(t, ws, "stray.txt", "created out of scope\n")
	os.Symlink(outside, filepath.Join(ws, "escape"))
	if err := snap.RestorePaths(s1.Commit, []string{"edit.txt", "stray.txt"}); err != nil {
		t.Fatal(err)
	}
	checkFile(t, ws, "edit.txt", "v1\n")
	checkFile(t, ws, "keep.txt", "in scope edit\n")
	if _, err := os.Stat(filepath.Join(ws, "stray.txt")); err == nil {
		t.Error("stray.txt not removed")
	}
	for _, bad := range []string{"../x", "escape/victim.txt"} {
		if err := snap.RestorePaths(s1.Commit, []string{bad}); err == nil {
			t.Errorf("%s: want refusal", bad)
		}
	}
	checkFile(t, outside, "victim.txt", "must survive\n")
}

func TestShadowRepoIsPacked(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws")
	for i := range 2000 { // about 8 objects per fan-out dir, so git's estimate sees them.
		write(t, ws, fmt.Sprintf("d%02d/f%04d.txt", i%30, i), fmt.Sprintf("file %d\n", i))
	}
	snap, err := NewSnapshotter(ws, ShadowDir(t.TempDir(), ws), SnapshotOptions{LooseObjectLimit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := snap.Snapshot(); err != nil {
		t.Fatal(err)
	}
	snap.Close() // waits for the background gc
	packs, _ := filepath.Glob(filepath.Join(snap.GitDir(), "objects", "pack", "*.pack"))
	loose, _ := filepath.Glob(filepath.Join(snap.GitDir(), "objects", "??", "*"))
	if len(packs) == 0 || len(loose) > 100 {
		t.Fatalf("%d packs, %d loose objects after gc", len(packs), len(loose))
	}
}
