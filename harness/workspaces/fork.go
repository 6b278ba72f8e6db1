package workspaces

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"exo/harness/api"
	"exo/harness/eventlog"
	"exo/harness/runtimes"
	"exo/harness/sessions"
	"exo/sandbox"
	"exo/store"
	"exo/store/failpoint"
)

// Fork creates a new sibling session whose history is the source session's events 1..seq
// (seq 0 means the head) followed by a session.forked event: O(1) in the history, nothing is
// copied. Unless o.Workspace is given, the sibling gets its own working copy of the source's
// workspace (a git worktree or a reflinked copy under EXO_HOME) with the files as they were at seq.
func (wk *Workspaces) Fork(sourceID string, seq uint64, o sessions.ForkOptions) (*api.Session, error) {
	src, err := wk.dir.Session(sourceID)
	if err != nil {
		return nil, err
	}
	if o.Workspace != "" || src.Workspace == "" {
		return wk.dir.ForkEvents(src.ID, seq, o, nil, nil)
	}
	return wk.forkWithWorkspace(src, seq, o)
}

// Rewind points a session at a new branch that continues from seq of its current history, and
// puts the workspace files back as they were at seq. The abandoned branch stays stored and
// listed in the session's branches, with a snapshot of the files as they were when it was left.
// The restore is journaled with the branch switch: a crash before it is done is completed by
// the next open (Recover), so files never stay half-restored.
func (wk *Workspaces) Rewind(sessionID string, seq uint64) (*api.Session, error) {
	tracked, err := wk.tracksFiles(sessionID)
	if err != nil {
		return nil, err
	}
	commit := ""
	if tracked {
		if _, err := wk.SnapshotWorkspace(sessionID, "", ""); err != nil {
			return nil, fmt.Errorf("rewind %s: keep the abandoned files: %w", sessionID, err)
		}
		failpoint.Hit("rewind.after-keep")
		cur, err := wk.dir.Session(sessionID)
		if err != nil {
			return nil, err
		}
		if commit, err = wk.snapshotAt(cur.Branch, seq); err != nil {
			return nil, err
		}
	}
	s, jid, err := wk.dir.RewindEvents(sessionID, seq, commit)
	if err != nil || commit == "" {
		return s, err
	}
	failpoint.Hit("rewind.after-events")
	if err := wk.RestoreCommit(s, commit, seq, jid); err != nil {
		return s, fmt.Errorf("rewind %s: the conversation was rewound but the files were not: %w", s.Name, err)
	}
	return s, nil
}

// forkWithWorkspace forks a session and gives the sibling its own working copy whose files
// match the source's snapshot at seq. Each step is journaled: a crash while the copy is made
// leaves an entry that the next open rolls back (the half-made copy removed); once the sibling
// is recorded, the entry becomes a restore that the next open completes.
func (wk *Workspaces) forkWithWorkspace(src *api.Session, seq uint64, o sessions.ForkOptions) (*api.Session, error) {
	from, err := sessions.ForkBranch(src, o)
	if err != nil {
		return nil, err
	}
	head, _, err := wk.st.Head(from)
	if err != nil {
		return nil, err
	}
	if seq > head {
		return nil, fmt.Errorf("fork %s: seq %d is past the head (%d): %w", src.Name, seq, head, api.ErrBadSeq)
	}
	if seq == 0 {
		seq = head
	}
	commit := ""
	if tracked, err := wk.tracksFiles(src.ID); err != nil {
		return nil, err
	} else if tracked {
		if commit, err = wk.snapshotAt(from, seq); err != nil {
			return nil, err
		}
	}
	dst := filepath.Join(wk.opts.Home, "workspaces", eventlog.NewID())
	clone := eventlog.NewJournal(eventlog.OpForkClone)
	clone.Dir, clone.Source = dst, src.Workspace
	if err := wk.st.Update(func(tx *store.Tx) error { return eventlog.PutJournal(tx, clone) }); err != nil {
		return nil, fmt.Errorf("fork %s: %w", src.Name, err)
	}
	failpoint.Hit("fork.after-journal")
	kind, err := wk.cloneWorkspace(src, dst, clone.ID)
	if err != nil {
		return nil, err
	}
	failpoint.Hit("fork.after-clone")
	alts := append([]string{sandbox.ShadowDir(wk.opts.Home, src.Workspace)}, runtimes.Alternates(src)...)
	o.Workspace = dst
	restore := eventlog.NewJournal(eventlog.OpRestore)
	n, err := wk.dir.ForkEvents(src.ID, seq, o, map[string]string{runtimes.AlternatesKey: strings.Join(alts, "\n"), "workspace_kind": kind, "project": projectOf(src)},
		func(tx *store.Tx, n *api.Session) error {
			if err := eventlog.DropJournal(tx, clone.ID); err != nil || commit == "" {
				return err
			}
			restore.Session, restore.Branch, restore.Commit, restore.Seq = n.ID, n.Branch, commit, seq
			return eventlog.PutJournal(tx, restore)
		})
	if err != nil {
		wk.RollbackClone(clone)
		return nil, err
	}
	failpoint.Hit("fork.after-events")
	if commit == "" {
		return n, nil
	}
	if err := wk.RestoreCommit(n, commit, seq, restore.ID); err != nil {
		return n, fmt.Errorf("fork %s: the sibling %s exists but its files could not be set to event %d: %w", src.Name, n.Name, seq, err)
	}
	return n, nil
}

// cloneWorkspace makes dst a working copy of src's workspace; on failure it rolls back.
func (wk *Workspaces) cloneWorkspace(src *api.Session, dst, jid string) (string, error) {
	err := os.MkdirAll(filepath.Dir(dst), 0o700)
	kind := ""
	if err == nil {
		kind, err = sandbox.CloneWorkspace(src.Workspace, dst, sandbox.CloneOptions{
			Caps: wk.rt.Capabilities(), Helper: wk.opts.Helper, Hide: []string{wk.opts.Home}, Private: wk.opts.Private})
	}
	if err != nil {
		wk.RollbackClone(eventlog.JournalEntry{ID: jid, Op: eventlog.OpForkClone, Dir: dst, Source: src.Workspace})
		return "", fmt.Errorf("fork %s: copy the workspace: %w", src.Name, err)
	}
	return kind, nil
}

// RollbackClone removes a working copy a fork did not finish (and its git worktree record in
// the source repository), then the journal entry. Any failure leaves the entry for the next
// open to try again.
func (wk *Workspaces) RollbackClone(e eventlog.JournalEntry) error {
	if err := sandbox.DiscardClone(e.Source, e.Dir); err != nil {
		return fmt.Errorf("roll back the unfinished fork copy %s: %w", e.Dir, err)
	}
	return wk.st.Update(func(tx *store.Tx) error { return eventlog.DropJournal(tx, e.ID) })
}

// projectOf names the project a session works on: its own setting, else its workspace.
func projectOf(s *api.Session) string {
	if p := s.Settings["project"]; p != "" {
		return p
	}
	return s.Workspace
}
