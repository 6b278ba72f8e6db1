package harness

import "fmt"

// SnapshotHook is called after a workspace.snapshot is appended, with the snapshot in force
// before it; governance uses it to record and revert changes outside a session's scope.
type SnapshotHook func(sessionID, branch string, snap WorkspaceSnapshot, previous string) error

// SetSnapshotHook installs the hook called after every recorded snapshot (nil removes it).
func (h *Harness) SetSnapshotHook(fn SnapshotHook) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.snapHook = fn
}

// snapshotHook returns the installed hook.
func (h *Harness) snapshotHook() SnapshotHook {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.snapHook
}

// RevertPaths puts paths of a session's workspace back as they were in snapshot commit and
// records the result as a new snapshot (without calling the hook again).
func (h *Harness) RevertPaths(sessionID, branch, commit string, paths []string) error {
	rt, err := h.Runtime(sessionID)
	if err != nil {
		return err
	}
	if err := rt.Snaps.RestorePaths(commit, paths); err != nil {
		return fmt.Errorf("revert %d paths of %s: %w", len(paths), sessionID, err)
	}
	_, err = h.snapshot(sessionID, branch, "", false, false, 0)
	return err
}
