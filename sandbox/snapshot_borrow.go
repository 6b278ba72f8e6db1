package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Borrow lets this shadow repository read another's objects (adds it to its alternates), so
// a snapshot taken in that one (a kept fork's) can be restored here. Borrowing one already
// borrowed changes nothing.
func (s *Snapshotter) Borrow(shadowDir string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrSnapshotterClosed
	}
	defer s.takeTurn()()
	file := filepath.Join(s.git.gitDir, "objects", "info", "alternates")
	b, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("borrow %s: %w", shadowDir, err)
	}
	line := filepath.Join(shadowDir, "objects")
	lines := strings.Fields(string(b))
	if slices.Contains(lines, line) {
		return nil
	}
	lines = append(lines, line)
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		return fmt.Errorf("borrow %s: %w", shadowDir, err)
	}
	if !slices.Contains(s.opts.Alternates, shadowDir) {
		s.opts.Alternates = append(s.opts.Alternates, shadowDir)
	}
	return nil
}
