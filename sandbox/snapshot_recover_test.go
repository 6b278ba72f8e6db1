package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRecoverShadowWaitsForLiveGit plants the leftovers of a killed exo in a shadow repository:
// while a process working on the repository lives, its locks stay; once it is gone they are
// removed and snapshots work again.
func TestRecoverShadowWaitsForLiveGit(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, "a.txt", "1")
	shadow := filepath.Join(t.TempDir(), "s.git")
	s, err := NewSnapshotter(ws, shadow, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Snapshot(); err != nil {
		t.Fatal(err)
	}
	planted := []string{filepath.Join(shadow, "exo-index.lock"), filepath.Join(shadow, "refs", "exo", "head.lock"),
		filepath.Join(shadow, "objects", "ab", "tmp_obj_x1"), filepath.Join(shadow, "objects", "pack", "tmp_pack_x2")}
	for _, p := range planted {
		write(t, filepath.Dir(p), filepath.Base(p), "partial")
	}
	write(t, ws, "a.txt", "2")
	if _, err := s.Snapshot(); err == nil || !strings.Contains(err.Error(), "exo-index.lock") {
		t.Fatalf("the planted lock does not block git: %v", err)
	}

	holder := exec.Command("sleep", "1")
	holder.Env = append(os.Environ(), "GIT_DIR="+shadow)
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- RecoverShadow(shadow) }()
	time.Sleep(300 * time.Millisecond)
	if _, err := os.Stat(planted[0]); err != nil {
		t.Fatal("a lock was removed while a process still works on the repository")
	}
	go holder.Wait()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if time.Since(start) < 500*time.Millisecond {
		t.Fatal("recovery did not wait for the live process")
	}
	for _, p := range planted {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("%s left behind", p)
		}
	}
	s2, err := NewSnapshotter(ws, shadow, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if snap, err := s2.Snapshot(); err != nil || len(snap.Changed) != 1 {
		t.Fatalf("snapshot after recovery: %+v %v", snap, err)
	}
}

// TestDiscardCloneRemovesHalfMadeWorktree leaves a worktree as `git worktree add` does when
// killed (locked "initializing"): discarding removes the folder and its record, and no other.
func TestDiscardCloneRemovesHalfMadeWorktree(t *testing.T) {
	repo := newRepo(t)
	other := filepath.Join(t.TempDir(), "other")
	userGit(t, repo, "worktree", "add", "--detach", other, "HEAD")
	dst := filepath.Join(t.TempDir(), "fork")
	userGit(t, repo, "worktree", "add", "--detach", dst, "HEAD")
	recs, _ := filepath.Glob(filepath.Join(repo, ".git", "worktrees", "*"))
	for _, r := range recs {
		if b, _ := os.ReadFile(filepath.Join(r, "gitdir")); strings.HasPrefix(string(b), dst) {
			os.WriteFile(filepath.Join(r, "locked"), []byte("initializing"), 0o644)
		}
	}
	os.Remove(filepath.Join(dst, ".git")) // killed before the link was written
	if err := DiscardClone(repo, dst); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dst); err == nil {
		t.Fatal("the half-made copy is still there")
	}
	list := userGit(t, repo, "worktree", "list", "--porcelain")
	if strings.Contains(list, dst) || !strings.Contains(list, other) {
		t.Fatalf("worktrees after discarding: %s", list)
	}
	if err := DiscardClone(repo, dst); err != nil {
		t.Fatalf("discarding twice: %v", err)
	}
}
