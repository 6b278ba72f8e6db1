package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"
)

// FileAt returns a workspace-relative path's content in snapshot commit; exists is false when
// the snapshot has no such file.
func (s *Snapshotter) FileAt(commit, path string) (content []byte, exists bool, err error) {
	p := filepath.ToSlash(filepath.Clean(path))
	if p == "." || strings.HasPrefix(p, "../") || filepath.IsAbs(p) {
		return nil, false, fmt.Errorf("file %s: path is outside the workspace", path)
	}
	if _, err := s.git.line("cat-file", "-e", commit+":"+p); err != nil {
		return nil, false, nil
	}
	out, err := s.git.run(nil, "cat-file", "blob", commit+":"+p)
	if err != nil {
		return nil, false, fmt.Errorf("file %s at %s: %w", path, commit, err)
	}
	return out, true, nil
}
