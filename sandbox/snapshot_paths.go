package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RestorePaths puts the given workspace-relative paths back as they were in snapshot commit:
// a path the snapshot has is rewritten from it, a path it lacks is removed. Other files are not
// touched. It is how the harness reverts changes a command made outside a session's scope.
func (s *Snapshotter) RestorePaths(commit string, paths []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range paths {
		p = filepath.ToSlash(filepath.Clean(p))
		if p == "." || strings.HasPrefix(p, "../") || filepath.IsAbs(p) {
			return fmt.Errorf("restore %s: path is outside the workspace", p)
		}
		if err := s.restorePath(commit, p); err != nil {
			return err
		}
	}
	return nil
}

// restorePath restores one path from commit, or removes it when the commit lacks it.
func (s *Snapshotter) restorePath(commit, p string) error {
	abs := filepath.Join(s.git.workTree, filepath.FromSlash(p))
	// The parent must resolve inside the workspace: a symlinked directory must never
	// lead a removal or a rewrite outside it. The path itself may be a symlink (replaced, not followed).
	if _, err := ResolveInWorkspace(s.git.workTree, filepath.Dir(abs)); err != nil {
		return fmt.Errorf("restore %s: %w", p, err)
	}
	if _, err := s.git.line("cat-file", "-e", commit+":"+p); err != nil {
		if err := os.RemoveAll(abs); err != nil {
			return fmt.Errorf("restore %s: remove: %w", p, err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return fmt.Errorf("restore %s: %w", p, err)
	}
	if _, err := s.git.run(nil, "restore", "--source="+commit, "--worktree", "--", p); err != nil {
		return fmt.Errorf("restore %s: %w", p, err)
	}
	return nil
}
