package harness

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"exo/sandbox"
)

// gitWorkspace makes a git repository with one commit.
func gitWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"config", "user.email", "t@e"}, {"config", "user.name", "t"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("sh", "-c", "cd "+dir+" && git add -A && git commit -qm one").CombinedOutput(); err != nil {
		t.Fatalf("commit: %v %s", err, out)
	}
	return dir
}

// worktrees lists the repository's `git worktree list`.
func worktrees(t *testing.T, repo string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", repo, "worktree", "list").CombinedOutput()
	if err != nil {
		t.Fatalf("worktree list: %v %s", err, out)
	}
	return string(out)
}

// TestRemoveForkLeavesNoWorktree: removing a fork takes its working copy out of the user's
// `git worktree list` and removes its snapshots and sandbox folders; the parent's snapshots
// (which a live fork borrows from) stay; the events stay in the store; the session is no longer
// listed or found, and a second removal finds nothing to remove.
func TestRemoveForkLeavesNoWorktree(t *testing.T) {
	ws := gitWorkspace(t)
	h := openTest(t, Options{SandboxHelper: testHelper()})
	s, _ := h.NewSession(NewSessionOptions{Name: "src", Workspace: ws})
	ctx := context.Background()
	if _, err := h.UserExec(ctx, s.ID, "echo one > f.txt", ExecOptions{}); err != nil {
		t.Fatal(err)
	}
	f, err := h.Fork(s.ID, 0, ForkOptions{Name: "sib"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.UserExec(ctx, f.ID, "echo two > f.txt", ExecOptions{}); err != nil {
		t.Fatal(err)
	}
	forkShadow := sandbox.ShadowDir(h.Home(), f.Workspace)
	// A session borrowing the fork's snapshots, as a fork of the fork does.
	g, _ := h.NewSession(NewSessionOptions{Name: "borrower"})
	if _, err := h.UpdateSession(g.ID, func(x *Session) error {
		x.Settings = map[string]string{alternatesKey: forkShadow}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(worktrees(t, ws), f.Workspace) {
		t.Fatalf("the fork is not a worktree: %s", worktrees(t, ws))
	}
	removed, err := h.RemoveSession(f.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(worktrees(t, ws), f.Workspace) {
		t.Fatalf("the removed fork is still in git worktree list:\n%s", worktrees(t, ws))
	}
	if _, err := os.Stat(f.Workspace); !os.IsNotExist(err) {
		t.Fatalf("the fork's copy is still there: %v", err)
	}
	if _, err := os.Stat(forkShadow); err != nil {
		t.Fatalf("the snapshots the grandchild borrows from were removed (removed %v)", removed)
	}
	if _, err := os.Stat(filepath.Join(ws, "f.txt")); err != nil {
		t.Fatal("the user's workspace was touched")
	}
	if _, err := h.Session("sib"); !errors.Is(err, ErrNoSession) {
		t.Fatalf("a deleted session resolves: %v", err)
	}
	if _, err := h.Session(f.ID); !errors.Is(err, ErrNoSession) {
		t.Fatalf("a deleted session resolves by id: %v", err)
	}
	all, _ := h.Sessions()
	for _, x := range all {
		if x.ID == f.ID {
			t.Fatal("a deleted session is listed")
		}
	}
	evs, err := h.st.ReadRange(f.Branch, 1, 0)
	if err != nil || len(evs) == 0 || evs[len(evs)-1].Type != TypeSessionDeleted {
		t.Fatalf("the log lost the session's events: %d %v", len(evs), err)
	}
	// The borrower removed too: now nothing borrows the fork's snapshots, and gc frees them.
	if _, err := h.RemoveSession(g.ID); err != nil {
		t.Fatal(err)
	}
	rep, err := h.GC(true)
	if err != nil || !hasItem(rep, forkShadow) {
		t.Fatalf("gc dry run: %+v %v", rep, err)
	}
	if _, err := os.Stat(forkShadow); err != nil {
		t.Fatal("a dry run removed something")
	}
	if rep, err = h.GC(false); err != nil || len(rep.Problems) > 0 {
		t.Fatalf("gc: %+v %v", rep, err)
	}
	if _, err := os.Stat(forkShadow); !os.IsNotExist(err) {
		t.Fatal("gc left the unused snapshots")
	}
	if _, err := os.Stat(sandbox.ShadowDir(h.Home(), ws)); err != nil {
		t.Fatal("gc removed the live session's snapshots")
	}
	if rep, _ := h.GC(true); len(rep.Items) != 0 {
		t.Fatalf("gc found more after collecting: %+v", rep.Items)
	}
}

// hasItem reports whether a gc report names path.
func hasItem(rep GCReport, path string) bool {
	for _, it := range rep.Items {
		if it.Path == path {
			return true
		}
	}
	return false
}

// TestArchiveHidesNothingElse: archiving is recorded, keeps the session usable and listed by
// Sessions (the API's lists filter it), and can be undone.
func TestArchiveSession(t *testing.T) {
	h := openTest(t, Options{})
	s, _ := h.NewSession(NewSessionOptions{Name: "old"})
	a, err := h.ArchiveSession(s.ID, true)
	if err != nil || !a.Archived {
		t.Fatalf("archive: %+v %v", a, err)
	}
	if again, err := h.ArchiveSession(s.ID, true); err != nil || !again.Archived {
		t.Fatalf("archive twice: %v", err)
	}
	evs, _ := h.Events(s.ID, 0, 0)
	n := 0
	for _, e := range evs {
		if e.Type == TypeSessionArchived {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d session.archived events", n)
	}
	if b, err := h.ArchiveSession("old", false); err != nil || b.Archived {
		t.Fatalf("unarchive: %v", err)
	}
}
