package sandbox

import "fmt"

// Restore makes the workspace match the snapshot commit: modified and deleted files
// come back, files created since are removed, and ignored or skipped files are left
// alone. It first snapshots the current state (so the restore can be undone) and
// records the restored state as a new snapshot, which it returns; its Parent is the
// pre-restore snapshot and Changed is what the restore changed. exo writes the files
// itself without following links (see checkout); git then only resets its index.
func (s *Snapshotter) Restore(commit string) (Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Snapshot{}, ErrSnapshotterClosed
	}
	defer s.takeTurn()()
	target, err := s.git.line("rev-parse", "--verify", commit+"^{tree}")
	if err != nil {
		return Snapshot{}, fmt.Errorf("restore %s: %w", commit, err)
	}
	before, err := s.snapshot("exo snapshot before restore")
	if err != nil {
		return Snapshot{}, fmt.Errorf("restore %s: %w", commit, err)
	}
	if err := s.checkout(before.Tree, target); err != nil {
		return Snapshot{}, fmt.Errorf("restore %s: %w", commit, err)
	}
	if _, err := s.git.run(nil, "read-tree", "--reset", target); err != nil {
		return Snapshot{}, fmt.Errorf("restore %s: %w", commit, err)
	}
	snap, err := s.commit(target, "exo restore "+commit, nil)
	if err != nil {
		return Snapshot{}, fmt.Errorf("restore %s: %w", commit, err)
	}
	return snap, nil
}
