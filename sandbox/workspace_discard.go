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
