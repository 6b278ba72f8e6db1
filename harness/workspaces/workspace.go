package workspaces

import (
	"encoding/json"
	"fmt"
	"time"

	"exo/harness/api"
	"exo/harness/eventlog"
	"exo/harness/runtimes"
	"exo/sandbox"
	"exo/store"
	"exo/store/failpoint"
)

// EnsureBaseline records the workspace's first snapshot before the session first changes it
// (executors call it before running tools), so a rewind to any earlier event has files to
// come back to.
func (wk *Workspaces) EnsureBaseline(sessionID, branch string) error {
	s, err := wk.dir.Session(sessionID)
	if err != nil || s.Workspace == "" {
		return err
	}
	rt, err := wk.rt.Runtime(sessionID)
	if err != nil {
		return err
	}
	return wk.ensureBaseline(sessionID, branch, rt)
}

// PrepareBaseline starts taking a session's first snapshot in the background (the first
// snapshot of a large workspace can take seconds), so that it is usually done before the first
// tool needs it; EnsureBaseline waits for it.
func (wk *Workspaces) PrepareBaseline(sessionID string) {
	wk.goBackground(func() { _ = wk.EnsureBaseline(sessionID, "") })
}

// ensureBaseline records the first snapshot of a session's workspace if it has none.
func (wk *Workspaces) ensureBaseline(sessionID, branch string, rt *runtimes.Runtime) error {
	rt.Baseline.Lock()
	defer rt.Baseline.Unlock()
	st, err := wk.log.State(sessionID)
	if err != nil {
		return err
	}
	if st.Snapshots > 0 || st.LastSnapshot != "" {
		return nil
	}
	snap, err := rt.Snaps.Snapshot()
	if err != nil {
		return fmt.Errorf("baseline snapshot of %s: %w", rt.Workspace, err)
	}
	failpoint.Hit("baseline.after-snapshot")
	p := snapshotPayload(snap, "")
	p.Baseline = true
	_, err = wk.log.AppendOn(sessionID, branch, eventlog.MustRecord(api.TypeWorkspaceSnapshot, api.ActorHarness, p))
	return err
}

// SnapshotWorkspace snapshots the session's workspace and, when files changed, appends a
// workspace.snapshot event (returned). callID links it to the tool call that caused it. After a
// background task ends the runtime room calls it (Hooks.TaskEnded).
func (wk *Workspaces) SnapshotWorkspace(sessionID, branch, callID string) (*api.WorkspaceSnapshot, error) {
	return wk.snapshot(sessionID, branch, callID, true, false, 0)
}

// snapshot takes and records a snapshot, calling the snapshot hook when withHook is set; hold >
// 0 holds the event for up to that long (see Hold) rather than appending it.
func (wk *Workspaces) snapshot(sessionID, branch, callID string, withHook, external bool, hold time.Duration) (*api.WorkspaceSnapshot, error) {
	rt, err := wk.rt.Runtime(sessionID)
	if err != nil {
		return nil, err
	}
	return wk.snapshotIn(rt, sessionID, branch, callID, withHook, external, hold)
}

// snapshotIn is snapshot in the session's sandbox rt.
//
// Sessions of one directory share its shadow repository: another session may have taken a
// snapshot since this one's last (an edit from outside is seen by the first that looks, a
// sibling's tool changes files). Each session's log is its own truth, so what changed from
// this session's last snapshot to that other one is recorded first, as an external snapshot
// (its timeline and drift show it; governance does not count it as the session's own), and
// then what changed since, as this snapshot.
func (wk *Workspaces) snapshotIn(rt *runtimes.Runtime, sessionID, branch, callID string, withHook, external bool, hold time.Duration) (*api.WorkspaceSnapshot, error) {
	if err := wk.ensureBaseline(sessionID, branch, rt); err != nil {
		return nil, err
	}
	previous := ""
	if st, err := wk.log.State(sessionID); err == nil {
		previous = st.LastSnapshot
	}
	snap, err := rt.Snaps.Snapshot()
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", rt.Workspace, err)
	}
	if snap.ParentByAnother && previous != "" && snap.Parent != previous {
		if err := wk.othersChanges(rt, sessionID, branch, previous, snap); err != nil {
			return nil, err
		}
		previous = snap.Parent // the files before this session's change: what a revert puts back
	}
	if len(snap.Changed) == 0 {
		return nil, nil
	}
	p := snapshotPayload(snap, callID)
	p.External = external
	if rec := eventlog.MustRecord(api.TypeWorkspaceSnapshot, api.ActorHarness, p); hold > 0 && branch != "" {
		wk.log.Hold(sessionID, branch, hold, rec)
	} else if _, err := wk.log.AppendOn(sessionID, branch, rec); err != nil {
		return nil, err
	}
	if hook := wk.snapshotHook(); withHook && hook != nil {
		if err := hook(sessionID, branch, p, previous); err != nil {
			return &p, fmt.Errorf("after snapshot: %w", err)
		}
	}
	return &p, nil
}

// othersChanges records, as an external snapshot of a session, what other sessions sharing
// its shadow repository changed between its previous snapshot and snap's parent.
func (wk *Workspaces) othersChanges(rt *runtimes.Runtime, sessionID, branch, previous string, snap sandbox.Snapshot) error {
	changed, err := rt.Snaps.Diff(previous, snap.Parent)
	if err != nil || len(changed) == 0 {
		return nil // the previous snapshot is not in this repository (a fork's): nothing to compare
	}
	p := snapshotPayload(sandbox.Snapshot{Commit: snap.Parent, Tree: snap.ParentTree, Changed: changed}, "")
	p.External = true
	_, err = wk.log.AppendOn(sessionID, branch, eventlog.MustRecord(api.TypeWorkspaceSnapshot, api.ActorHarness, p))
	return err
}

// snapshotPayload converts a sandbox snapshot into its event payload.
func snapshotPayload(s sandbox.Snapshot, callID string) api.WorkspaceSnapshot {
	p := api.WorkspaceSnapshot{Commit: s.Commit, Tree: s.Tree, CallID: callID}
	for _, c := range s.Changed {
		p.Changed = append(p.Changed, api.FileChange{Path: c.Path, Kind: string(c.Kind), From: c.From})
	}
	for _, sk := range s.Skipped {
		p.Skipped = append(p.Skipped, sk.Path+" ("+sk.Reason+")")
	}
	return p
}

// snapshotAt returns the workspace snapshot commit in force at seq of a branch's history:
// the newest at or before seq, else the branch's first (the baseline).
func (wk *Workspaces) snapshotAt(branch string, seq uint64) (string, error) {
	st, _, err := wk.log.LoadState(branch, seq, true)
	if err != nil {
		return "", err
	}
	if st.LastSnapshot != "" {
		return st.LastSnapshot, nil
	}
	evs, err := wk.st.ReadRange(branch, seq+1, 0)
	if err != nil {
		return "", err
	}
	for _, e := range evs {
		if e.Type == api.TypeWorkspaceSnapshot {
			var p api.WorkspaceSnapshot
			if json.Unmarshal(e.Data, &p) == nil {
				return p.Commit, nil
			}
		}
	}
	return "", nil
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// tracksFiles reports whether a session's workspace files follow its history: it has a
// workspace and has snapshotted it at least once.
func (wk *Workspaces) tracksFiles(sessionID string) (bool, error) {
	s, err := wk.dir.Session(sessionID)
	if err != nil || s.Workspace == "" {
		return false, err
	}
	st, err := wk.log.BranchState(s.Branch)
	if err != nil {
		return false, err
	}
	return st.Snapshots > 0, nil
}

// RestoreCommit puts a session's workspace back to a snapshot commit and records
// workspace.restored (at seq: the event the files now match), removing the journal entry jid
// of the operation in the same transaction. Restoring the same commit again is harmless, which
// is how Recover completes a restore a crash cut short.
func (wk *Workspaces) RestoreCommit(s *api.Session, commit string, seq uint64, jid string) error {
	rt, err := wk.rt.Runtime(s.ID)
	if err != nil {
		return err
	}
	failpoint.Hit("restore.before")
	rt.Run.Lock()
	snap, err := rt.Snaps.Restore(commit)
	rt.Run.Unlock()
	if err != nil {
		return err
	}
	failpoint.Hit("restore.after-files")
	p := api.WorkspaceRestored{Commit: commit, AtSeq: seq}
	for _, c := range snap.Changed {
		p.Changed = append(p.Changed, api.FileChange{Path: c.Path, Kind: string(c.Kind), From: c.From})
	}
	_, err = wk.log.AppendWith(s.ID, s.Branch, func(tx *store.Tx) error { return eventlog.DropJournal(tx, jid) },
		eventlog.MustRecord(api.TypeWorkspaceRestored, api.ActorHarness, p))
	return err
}

// FileAtSnapshot returns a path's content in a session's newest snapshot (for diffs between
// sessions that share a workspace); a missing file is empty.
func (wk *Workspaces) FileAtSnapshot(sessionID, path string) (string, error) {
	st, err := wk.log.State(sessionID)
	if err != nil || st.LastSnapshot == "" {
		return "", err
	}
	rt, err := wk.rt.Runtime(sessionID)
	if err != nil {
		return "", err
	}
	b, _, err := rt.Snaps.FileAt(st.LastSnapshot, path)
	return string(b), err
}
