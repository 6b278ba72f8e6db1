package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCloneWorkspaceGitMatchesCurrentFiles(t *testing.T) {
	src := newRepo(t)
	write(t, src, "edit.txt", "uncommitted edit\n")
	os.Remove(filepath.Join(src, "gone.txt"))
	write(t, src, "untracked/new.txt", "untracked\n")
	before := userState(t, src)
	dst := filepath.Join(t.TempDir(), "fork")
	kind, err := CloneWorkspace(src, dst, CloneOptions{Caps: testCaps()})
	if err != nil || kind != KindWorktree {
		t.Fatalf("clone: %q %v", kind, err)
	}
	checkFile(t, dst, "edit.txt", "uncommitted edit\n")
	checkFile(t, dst, "staged.txt", "staged\n")
	checkFile(t, dst, "untracked/new.txt", "untracked\n")
	checkFile(t, dst, "keep.txt", "keep\n")
	if _, err := os.Stat(filepath.Join(dst, "gone.txt")); err == nil {
		t.Error("deleted file came back in the fork")
	}
	if _, err := os.Stat(filepath.Join(dst, "debug.log")); err == nil {
		t.Error("ignored file copied into the worktree")
	}
	if target, _ := os.Readlink(filepath.Join(dst, "link")); target != "keep.txt" {
		t.Errorf("link -> %q", target)
	}
	if after := userState(t, src); after != before {
		t.Fatalf("source repo state changed:\n%s\nvs\n%s", before, after)
	}
	forksEditIndependently(t, src, dst)
	if err := RemoveWorkspace(dst); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dst); err == nil || strings.Contains(userGit(t, src, "worktree", "list"), dst) {
		t.Fatalf("worktree not removed: %s", userGit(t, src, "worktree", "list"))
	}
}

func TestCloneWorkspacePlainDirCopies(t *testing.T) {
	src := filepath.Join(t.TempDir(), "plain")
	write(t, src, "a.txt", "original\n")
	write(t, src, "sub/b.txt", "b\n")
	os.Symlink("a.txt", filepath.Join(src, "link"))
	os.Chmod(filepath.Join(src, "a.txt"), 0o755)
	dst := filepath.Join(t.TempDir(), "fork")
	kind, err := CloneWorkspace(src, dst, CloneOptions{Caps: testCaps()})
	if err != nil || (kind != KindReflink && kind != KindCopy) {
		t.Fatalf("clone: %q %v", kind, err)
	}
	t.Logf("plain directory cloned as %q", kind)
	checkFile(t, dst, "sub/b.txt", "b\n")
	if fi, _ := os.Stat(filepath.Join(dst, "a.txt")); fi == nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("mode not kept: %v", fi)
	}
	forksEditIndependently(t, src, dst)
	if err := RemoveWorkspace(dst); err != nil {
		t.Fatal(err)
	}
}

// forksEditIndependently edits a.txt/edit.txt in place from two shells and checks neither sees the other.
func forksEditIndependently(t *testing.T, a, b string) {
	file := "edit.txt"
	if _, err := os.Stat(filepath.Join(a, file)); err != nil {
		file = "a.txt"
	}
	for i, ws := range []string{a, b} {
		cfg := testConfig(t)
		cfg.Workspace = ws
		sh := newTestShell(t, cfg)
		// Append in place (same inode), which is what would leak through hard links.
		r := run(t, sh, fmt.Sprintf("echo from-%d >> %s && cat %s | tail -1", i, file, file), RunOptions{})
		if r.ExitCode != 0 {
			t.Fatalf("edit in %s: %+v", ws, r)
		}
	}
	for i, ws := range []string{a, b} {
		data, _ := os.ReadFile(filepath.Join(ws, file))
		mine, other := fmt.Sprintf("from-%d", i), fmt.Sprintf("from-%d", 1-i)
		if !strings.Contains(string(data), mine) || strings.Contains(string(data), other) {
			t.Fatalf("%s/%s = %q: edits leaked between forks", ws, file, data)
		}
	}
}

// TestCloneOfACloneUnderTmp forks a fork of a repository under /tmp, where the confined git's
// private /tmp hid the repository the fork's worktree belongs to ("not a git repository").
func TestCloneOfACloneUnderTmp(t *testing.T) {
	src := newRepo(t)
	if !strings.HasPrefix(src, "/tmp/") {
		t.Skipf("the repository is at %s, not under /tmp (TMPDIR is set elsewhere)", src)
	}
	first := filepath.Join(t.TempDir(), "fork")
	if kind, err := CloneWorkspace(src, first, CloneOptions{Caps: testCaps()}); err != nil || kind != KindWorktree {
		t.Fatalf("first clone: %q %v", kind, err)
	}
	write(t, first, "edit.txt", "made in the first fork\n")
	second := filepath.Join(t.TempDir(), "fork")
	kind, err := CloneWorkspace(first, second, CloneOptions{Caps: testCaps()})
	if err != nil || kind != KindWorktree {
		t.Fatalf("clone of the clone: %q %v", kind, err)
	}
	checkFile(t, second, "edit.txt", "made in the first fork\n")
	checkFile(t, second, "keep.txt", "keep\n")
	forksEditIndependently(t, first, second)
}
