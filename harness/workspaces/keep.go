package workspaces

import (
	"fmt"

	"exo/harness/api"
	"exo/harness/eventlog"
	"exo/harness/runtimes"
	"exo/sandbox"
	"exo/store"
	"exo/store/failpoint"
)

// KeepBranch makes another session's history and files a session's own (an attempt kept by
// the session it started from): the session moves onto a new branch continuing the other's
// from its head, its first event the payload kept makes (given the branch left, where it was
// left, and the head continued), and its workspace takes the other's files from its newest
// snapshot. The session's own branch and files stay reachable, as after a rewind: its files
// are snapshotted first. The restore is journaled with the branch switch, so a crash between
// them is completed by the next open.
func (wk *Workspaces) KeepBranch(sessionID, otherID, typ string, kept func(from string, abandoned, at uint64) any) (*api.Session, error) {
	other, err := wk.dir.Session(otherID)
	if err != nil {
		return nil, err
	}
	commit, borrow := "", ""
	if other.Workspace != "" {
		if _, err := wk.SnapshotWorkspace(other.ID, "", ""); err != nil {
			return nil, fmt.Errorf("keep %s: snapshot its files: %w", other.Name, err)
		}
		st, err := wk.log.State(other.ID)
		if err != nil {
			return nil, err
		}
		commit, borrow = st.LastSnapshot, sandbox.ShadowDir(wk.opts.Home, other.Workspace)
	}
	if tracked, err := wk.tracksFiles(sessionID); err != nil {
		return nil, err
	} else if tracked {
		if _, err := wk.SnapshotWorkspace(sessionID, "", ""); err != nil {
			return nil, fmt.Errorf("keep %s: keep the files left: %w", other.Name, err)
		}
	}
	failpoint.Hit("keep.after-snapshots")
	var at uint64
	s, jid, err := wk.dir.AdoptEvents(sessionID, other.Branch, runtimes.AlternatesKey, borrow, commit,
		func(from string, abandoned, head uint64) store.Record {
			at = head
			return eventlog.MustRecord(typ, api.ActorUser, kept(from, abandoned, head))
		})
	if err != nil || commit == "" {
		return s, err
	}
	failpoint.Hit("keep.after-adopt")
	rt, err := wk.rt.Runtime(s.ID)
	if err != nil {
		return s, err
	}
	if err := rt.Snaps.Borrow(borrow); err != nil {
		return s, fmt.Errorf("keep %s: %w", other.Name, err)
	}
	failpoint.Hit("keep.after-borrow")
	if err := wk.RestoreCommit(s, commit, at, jid); err != nil {
		return s, fmt.Errorf("keep %s: the history was kept but the files were not: %w", other.Name, err)
	}
	return s, nil
}
