package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"exo/store/failpoint"
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
	private := privateRels(src, opts.Private)
	if g, ok := repoTop(src); ok {
		if err := cloneWorktree(g, src, dst, private, opts); err != nil {
			return "", fmt.Errorf("clone workspace %s: %w", src, err)
		}
		return KindWorktree, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", fmt.Errorf("clone workspace %s: %w", src, err)
	}
	st, err := copyTree(src, dst, private)
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

// cloneWorktree adds a detached worktree at src's HEAD and replays uncommitted changes onto
// it. Only `git worktree add --no-checkout` reads the repository's own config (it runs no
// driver, and runs confined); the checkout, the status of src and the listing of submodules run
// with a pinned git dir, so no config the agent wrote, even after exo looked, is read.
// Submodules and nested repositories are copied as plain folders, never entered by git.
func cloneWorktree(g gitRunner, src, dst string, private []string, opts CloneOptions) error {
	paths, err := userRepoPaths(g)
	if err != nil {
		return err
	}
	commit, err := g.line("rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return err
	}
	if err := addWorktree(g, src, dst, commit, opts); err != nil {
		return err
	}
	failpoint.Hit("clone.after-worktree")
	wtDir, err := worktreeGitDir(dst)
	if err != nil {
		return err
	}
	to, done, err := pinnedGit(paths, commit, dst, filepath.Join(wtDir, "index"))
	if err != nil {
		return err
	}
	defer done()
	if _, err := to.run(nil, "read-tree", "--reset", "-u", commit); err != nil {
		return err
	}
	from, done2, err := pinnedGit(paths, commit, src, filepath.Join(paths.gitDir, "index"))
	if err != nil {
		return err
	}
	defer done2()
	from.readOnly = true
	changed, err := uncommitted(from, to)
	if err != nil {
		return err
	}
	return replayInto(src, dst, changed, private)
}

// uncommitted lists the paths to copy from the source work tree: what status reports changed
// or untracked (not ignored), and every submodule (gitlink) of either index.
func uncommitted(from, to gitRunner) ([]string, error) {
	out, err := from.run(nil, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all")
	if err != nil {
		return nil, err
	}
	var paths []string
	seen := map[string]bool{}
	add := func(p string) {
		if p = strings.TrimSuffix(p, "/"); p != "" && !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	for _, entry := range strings.Split(string(out), "\x00") {
		if len(entry) >= 4 {
			add(entry[3:])
		}
	}
	for _, g := range []gitRunner{from, to} {
		links, err := gitlinks(g)
		if err != nil {
			return nil, err
		}
		for _, p := range links {
			add(p)
		}
	}
	return paths, nil
}

// gitlinks lists the submodule entries of g's index.
func gitlinks(g gitRunner) ([]string, error) {
	out, err := g.run(nil, "ls-files", "--stage", "-z")
	if err != nil {
		return nil, err
	}
	var links []string
	for _, e := range strings.Split(string(out), "\x00") {
		if meta, p, ok := strings.Cut(e, "\t"); ok && strings.HasPrefix(meta, "160000 ") {
			links = append(links, p)
		}
	}
	return links, nil
}

// replayInto copies each path (file, link or whole folder) from src to dst, or removes it from
// dst when src has none, never following a link on either side; private paths are left out.
func replayInto(src, dst string, paths, private []string) error {
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
	st := copyStats{skip: private}
	for _, rel := range paths {
		if IsPrivate(rel, private) {
			continue
		}
		if err := replaceWith(from, to, rel, &st); err != nil {
			return fmt.Errorf("copy uncommitted %s: %w", rel, err)
		}
	}
	return nil
}

// worktreeGitDir returns the git dir that `git worktree add` named in dst/.git.
func worktreeGitDir(dst string) (string, error) {
	b, err := ReadBeneath(dst, ".git", 4096)
	if err != nil {
		return "", fmt.Errorf("new worktree: %w", err)
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok || !filepath.IsAbs(dir) {
		return "", fmt.Errorf("new worktree: unexpected .git file %q", b)
	}
	return dir, nil
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
	unlock := lockWorktrees(common)
	_, err := g.run(nil, "worktree", "prune")
	unlock()
	if err != nil {
		return fmt.Errorf("remove workspace %s: %w", dir, err)
	}
	return nil
}
