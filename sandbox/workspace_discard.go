package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DiscardClone removes a working copy that CloneWorkspace(src, dst) may have left half-made
// (exo was killed while making it): the directory, and the git worktree record that `git
// worktree add` wrote into src's repository for it, even one left locked "initializing". Other
// worktrees of the repository are not touched. A dst that does not exist is not an error.
func DiscardClone(src, dst string) error {
	wants := map[string]bool{filepath.Join(dst, ".git"): true}
	if parent, err := filepath.EvalSymlinks(filepath.Dir(dst)); err == nil {
		wants[filepath.Join(parent, filepath.Base(dst), ".git")] = true
	}
	if err := os.RemoveAll(dst); err != nil {
		return fmt.Errorf("discard %s: %w", dst, err)
	}
	common, err := userRepo(src).run(nil, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return nil // not a git repository: there is no worktree record
	}
	defer lockWorktrees(strings.TrimSpace(string(common)))()
	recs, _ := filepath.Glob(filepath.Join(strings.TrimSpace(string(common)), "worktrees", "*", "gitdir"))
	for _, r := range recs {
		b, err := os.ReadFile(r)
		if err != nil || !wants[filepath.Clean(strings.TrimSpace(string(b)))] {
			continue
		}
		if err := os.RemoveAll(filepath.Dir(r)); err != nil {
			return fmt.Errorf("discard the worktree record of %s: %w", dst, err)
		}
	}
	return nil
}

// DiscardWorktree removes a working copy exo made (dst) and, when it is a git worktree, the
// record `git worktree add` wrote for it in its repository (found from dst's own .git file, and
// only when that record points back at dst), so it leaves the user's `git worktree list`. A dst
// that does not exist is not an error; removing it again is harmless.
func DiscardWorktree(dst string) error {
	if b, err := os.ReadFile(filepath.Join(dst, ".git")); err == nil {
		if gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
			if err := dropWorktreeRecord(filepath.Clean(gitdir), dst); err != nil {
				return err
			}
		}
	}
	if err := os.RemoveAll(dst); err != nil {
		return fmt.Errorf("discard %s: %w", dst, err)
	}
	return nil
}

// dropWorktreeRecord removes a repository's worktree record (…/.git/worktrees/NAME) when its
// gitdir file names dst's .git.
func dropWorktreeRecord(record, dst string) error {
	if filepath.Base(filepath.Dir(record)) != "worktrees" {
		return nil // not a worktree record: leave whatever it is alone
	}
	b, err := os.ReadFile(filepath.Join(record, "gitdir"))
	if err != nil {
		return nil
	}
	back := filepath.Clean(strings.TrimSpace(string(b)))
	if back != filepath.Join(dst, ".git") {
		if real, err := filepath.EvalSymlinks(filepath.Dir(dst)); err != nil || back != filepath.Join(real, filepath.Base(dst), ".git") {
			return nil
		}
	}
	defer lockWorktrees(filepath.Dir(filepath.Dir(record)))()
	if err := os.RemoveAll(record); err != nil {
		return fmt.Errorf("discard the worktree record of %s: %w", dst, err)
	}
	return nil
}
