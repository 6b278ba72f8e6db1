package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"exo/internal/failpoint"
)

// Workspace kinds returned by CloneWorkspace.
const (
	KindWorktree = "git-worktree" // KindWorktree is a detached git worktree plus uncommitted changes.
	KindReflink  = "reflink"      // KindReflink is a copy whose files share blocks copy-on-write.
	KindCopy     = "copy"         // KindCopy is a plain copy.
)

// CloneWorkspace makes dst an independent working copy of src for a forked session.
// When src is the top of a git repository with a commit, dst is a detached worktree at
// HEAD with src's uncommitted and untracked (not ignored) changes copied over, so its
// files match src's as they are now; otherwise dst is a copy that reflinks files where
// the filesystem allows. Hard links are never used, since a write through one would
// change the other. It returns KindWorktree, KindReflink or KindCopy.
//
// src is the agent's workspace, so it is treated as hostile: git runs hardened (no hook,
// filter or other configured command of the repository runs), files are read beneath src
// and written beneath dst without following any link, and a .git that is a link is not used.
func CloneWorkspace(src, dst string, opts CloneOptions) (string, error) {
	src, err := filepath.EvalSymlinks(src)
	if err != nil {
		return "", fmt.Errorf("clone workspace %s: %w", src, err)
	}
	if _, err := os.Lstat(dst); err == nil {
		return "", fmt.Errorf("clone workspace to %s: already exists", dst)
	}
	if g, ok := repoTop(src); ok {
		if err := cloneWorktree(g, src, dst, opts); err != nil {
			return "", fmt.Errorf("clone workspace %s: %w", src, err)
		}
		return KindWorktree, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", fmt.Errorf("clone workspace %s: %w", src, err)
	}
	st, err := copyTree(src, dst)
	if err != nil {
		return "", fmt.Errorf("clone workspace %s: %w", src, err)
	}
	return st.kind(), nil
}

// repoTop returns the hardened runner for the repository whose work tree is dir, when dir is
// the top of one whose HEAD has a commit. A .git folder is named to git explicitly; a .git
// file (a linked worktree) is left to git; a .git link is not followed.
func repoTop(dir string) (gitRunner, bool) {
	d, err := OpenDir(dir)
	if err != nil {
		return gitRunner{}, false
	}
	fi, err := d.Lstat(".git")
	d.Close()
	if err != nil || !(fi.IsDir() || fi.Mode().IsRegular()) {
		return gitRunner{}, false
	}
	g := userRepo(dir)
	if fi.IsDir() {
		g.gitDir = filepath.Join(dir, ".git")
	}
	top, err := g.line("rev-parse", "--show-toplevel")
	if err != nil {
		return g, false
	}
	if top, err = filepath.EvalSymlinks(top); err != nil || top != dir {
		return g, false
	}
	_, err = g.run(nil, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	return g, err == nil
}

// cloneWorktree adds a detached worktree and replays uncommitted changes onto it.
func cloneWorktree(g gitRunner, src, dst string, opts CloneOptions) error {
	if err := addWorktree(g, src, dst, opts); err != nil {
		return err
	}
	failpoint.Hit("clone.after-worktree")
	out, err := g.run(nil, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		return err
	}
	from, err := OpenDir(src)
	if err != nil {
		return err
	}
	defer from.Close()
	to, err := OpenDir(dst)
	if err != nil {
		return err
	}
	defer to.Close()
	var st copyStats
	for _, entry := range strings.Split(string(out), "\x00") {
		if len(entry) < 4 {
			continue
		}
		rel := entry[3:]
		if err := replaceWith(from, to, rel, &st); err != nil {
			return fmt.Errorf("copy uncommitted %s: %w", rel, err)
		}
	}
	return nil
}

// RemoveWorkspace deletes a working copy made by CloneWorkspace (never following a link in
// it); for a git worktree it then prunes the worktree's record in the source repository.
func RemoveWorkspace(dir string) error {
	var common string
	if fi, err := os.Lstat(filepath.Join(dir, ".git")); err == nil && fi.Mode().IsRegular() {
		out, err := gitRunner{workTree: dir}.line("rev-parse", "--path-format=absolute", "--git-common-dir")
		if err != nil {
			return fmt.Errorf("remove workspace %s: %w", dir, err)
		}
		common = out
	}
	if err := os.RemoveAll(dir); err != nil { // os.RemoveAll opens each level with O_NOFOLLOW.
		return fmt.Errorf("remove workspace %s: %w", dir, err)
	}
	if common == "" {
		return nil
	}
	g := gitRunner{gitDir: common, workTree: filepath.Dir(common)}
	if _, err := g.run(nil, "worktree", "prune"); err != nil {
		return fmt.Errorf("remove workspace %s: %w", dir, err)
	}
	return nil
}
