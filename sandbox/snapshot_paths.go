package sandbox

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// RestorePaths puts the given workspace-relative paths back as they were in snapshot commit:
// a path the snapshot has is rewritten from it, a path it lacks is removed. Other files are not
// touched. It is how the harness reverts changes a command made outside a session's scope.
func (s *Snapshotter) RestorePaths(commit string, paths []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrSnapshotterClosed
	}
	defer s.takeTurn()()
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

// restorePath restores one path from commit (every file beneath it when it is a folder there),
// or removes it when the commit lacks it. Like Restore, exo writes and removes beneath the
// workspace without following links: a link planted in the path (or swapped in meanwhile)
// never leads the rewrite or the removal outside.
func (s *Snapshotter) restorePath(commit, p string) error {
	out, err := s.git.run(nil, "ls-tree", "-r", "-z", "--full-tree", commit, "--", p)
	if err != nil {
		return fmt.Errorf("restore %s: %w", p, err)
	}
	var es []treeEntry
	for _, rec := range bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0}) {
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if ok && len(f) == 3 {
			es = append(es, treeEntry{path: string(path), mode: f[0], sha: f[2]})
		}
	}
	if len(es) == 0 {
		es = []treeEntry{{path: p, remove: true}}
	}
	if err := s.apply(es); err != nil {
		return fmt.Errorf("restore %s: %w", p, err)
	}
	return nil
}
