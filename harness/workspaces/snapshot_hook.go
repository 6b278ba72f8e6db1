package workspaces

import (
	"fmt"

	"exo/harness/api"
)

// SnapshotHook is called after a workspace.snapshot is appended, with the snapshot in force
// before it; governance uses it to record and revert changes outside a session's scope.
type SnapshotHook func(sessionID, branch string, snap api.WorkspaceSnapshot, previous string) error

// SetSnapshotHook installs the hook called after every recorded snapshot (nil removes it).
func (wk *Workspaces) SetSnapshotHook(fn SnapshotHook) {
	wk.mu.Lock()
	defer wk.mu.Unlock()
	wk.hook = fn
}

// snapshotHook returns the installed hook.
func (wk *Workspaces) snapshotHook() SnapshotHook {
	wk.mu.Lock()
	defer wk.mu.Unlock()
	return wk.hook
}

// RevertPaths puts paths of a session's workspace back as they were in snapshot commit and
// records the result as a new snapshot (without calling the hook again).
func (wk *Workspaces) RevertPaths(sessionID, branch, commit string, paths []string) error {
	rt, err := wk.rt.Runtime(sessionID)
	if err != nil {
		return err
	}
	if err := rt.Snaps.RestorePaths(commit, paths); err != nil {
		return fmt.Errorf("revert %d paths of %s: %w", len(paths), sessionID, err)
	}
	_, err = wk.snapshot(sessionID, branch, "", false, false, 0)
	return err
}
