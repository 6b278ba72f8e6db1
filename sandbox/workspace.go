package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
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
func CloneWorkspace(src, dst string) (string, error) {
	src, err := filepath.EvalSymlinks(src)
	if err != nil {
		return "", fmt.Errorf("clone workspace %s: %w", src, err)
	}
	if _, err := os.Lstat(dst); err == nil {
		return "", fmt.Errorf("clone workspace to %s: already exists", dst)
	}
	if isRepoTop(src) {
		if err := cloneWorktree(src, dst); err != nil {
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

// userGitCmd runs git in the user's repository dir with the user's own configuration.
func userGitCmd(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	// No optional locks: a status killed with exo must not leave the user's index locked.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out, nil
}

// isRepoTop reports whether dir is the top of a git work tree whose HEAD has a commit.
func isRepoTop(dir string) bool {
	out, err := userGitCmd(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return false
	}
	top, err := filepath.EvalSymlinks(strings.TrimSpace(string(out)))
	if err != nil || top != dir {
		return false
	}
	_, err = userGitCmd(dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	return err == nil
}

// cloneWorktree adds a detached worktree and replays uncommitted changes onto it.
func cloneWorktree(src, dst string) error {
	if _, err := userGitCmd(src, "worktree", "add", "--quiet", "--detach", dst, "HEAD"); err != nil {
		return err
	}
	failpoint.Hit("clone.after-worktree")
	out, err := userGitCmd(src, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		return err
	}
	var st copyStats
	for _, entry := range strings.Split(string(out), "\x00") {
		if len(entry) < 4 {
			continue
		}
		rel := entry[3:]
		if err := replaceWith(filepath.Join(src, rel), filepath.Join(dst, rel), &st); err != nil {
			return fmt.Errorf("copy uncommitted %s: %w", rel, err)
		}
	}
	return nil
}

// RemoveWorkspace deletes a working copy made by CloneWorkspace; for a git worktree it
// also drops the worktree's record in the source repository.
func RemoveWorkspace(dir string) error {
	if fi, err := os.Lstat(filepath.Join(dir, ".git")); err == nil && fi.Mode().IsRegular() {
		common, err := userGitCmd(dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
		if err != nil {
			return fmt.Errorf("remove workspace %s: %w", dir, err)
		}
		gitDir := "--git-dir=" + strings.TrimSpace(string(common))
		if _, err := userGitCmd(filepath.Dir(dir), gitDir, "worktree", "remove", "--force", dir); err != nil {
			return fmt.Errorf("remove workspace %s: %w", dir, err)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove workspace %s: %w", dir, err)
	}
	return nil
}
