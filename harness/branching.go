package harness

import (
	"exo/harness/api"
	"exo/harness/eventlog"
	"fmt"

	"exo/store"
	"exo/store/failpoint"
)

// ErrBadSeq means a seq given for fork or rewind is not an event of the session's history.
var ErrBadSeq = api.ErrBadSeq

// ForkOptions describes a fork.
type ForkOptions struct {
	// Name of the new session; a memorable one is made up when empty.
	Name string
	// Workspace of the new session (its own working copy); the source's when empty.
	Workspace string
	// Branch forks one of the source's branches (an abandoned one, say) instead of its current.
	Branch string
}

// forkBranch returns the branch of src a fork starts from: o.Branch if it is one of src's.
func forkBranch(src *Session, o ForkOptions) (string, error) {
	if o.Branch == "" || o.Branch == src.Branch {
		return src.Branch, nil
	}
	for _, b := range src.Branches {
		if b == o.Branch {
			return b, nil
		}
	}
	return "", fmt.Errorf("branch %s is not one of session %s's: %w", o.Branch, src.Name, ErrBadSeq)
}

// checkSeq validates seq against a branch head; seq 0 means the head.
func checkSeq(tx *store.Tx, branch string, seq uint64) (uint64, uint64, error) {
	head, _, err := tx.Head(branch)
	if err != nil {
		return 0, 0, err
	}
	if seq == 0 {
		seq = head
	}
	if seq > head {
		return 0, 0, fmt.Errorf("seq %d is past the head (%d): %w", seq, head, ErrBadSeq)
	}
	return seq, head, nil
}

// Fork creates a new sibling session whose history is the source session's events 1..seq
// (seq 0 means the head) followed by a session.forked event: O(1) in the history, nothing is
// copied. Unless o.Workspace is given, the sibling gets its own working copy of the source's
// workspace (a git worktree or a reflinked copy under EXO_HOME) with the files as they were at seq.
func (h *Harness) Fork(sourceID string, seq uint64, o ForkOptions) (*Session, error) {
	src, err := h.Session(sourceID)
	if err != nil {
		return nil, err
	}
	if o.Workspace != "" || src.Workspace == "" {
		return h.forkEvents(src.ID, seq, o, nil, nil)
	}
	return h.forkWithWorkspace(src, seq, o)
}

// forkEvents records the fork in the log; settings are added to the new session's. inTx, when
// not nil, runs in the same transaction once the new session is known (its journal entries).
func (h *Harness) forkEvents(sourceID string, seq uint64, o ForkOptions, settings map[string]string, inTx func(*store.Tx, *Session) error) (*Session, error) {
	if o.Name == "" {
		o.Name = NewName()
	}
	if err := validName(o.Name); err != nil {
		return nil, err
	}
	n := &Session{ID: NewID(), Name: o.Name, Agent: "default", Parent: sourceID}
	n.Branch, n.Branches = n.ID, []string{n.ID}
	var evs []store.Event
	err := h.st.Update(func(tx *store.Tx) error {
		src, err := eventlog.GetSession(tx, sourceID)
		if err != nil {
			return err
		}
		if err := nameFree(tx, o.Name); err != nil {
			return err
		}
		from, err := forkBranch(src, o)
		if err != nil {
			return err
		}
		if seq, _, err = checkSeq(tx, from, seq); err != nil {
			return err
		}
		n.Agent, n.ParentSeq = src.Agent, seq
		n.Settings = map[string]string{}
		for k, v := range src.Settings {
			n.Settings[k] = v
		}
		for k, v := range settings {
			n.Settings[k] = v
		}
		n.Workspace = firstNonEmpty(o.Workspace, src.Workspace)
		b, err := tx.Fork(n.Branch, from, seq)
		if err != nil {
			return err
		}
		n.Created = b.Created
		evs, err = tx.Append(n.Branch, MustRecord(TypeSessionForked, ActorHarness, SessionForked{
			FromSession: src.ID, FromName: src.Name, FromBranch: from, AtSeq: seq, Name: n.Name, Workspace: n.Workspace}))
		if err != nil {
			return err
		}
		if inTx != nil {
			if err := inTx(tx, n); err != nil {
				return err
			}
		}
		return eventlog.PutSession(tx, n)
	})
	if err != nil {
		return nil, fmt.Errorf("fork %s: %w", sourceID, err)
	}
	h.Committed(n.ID, n.Branch, eventlog.EventsOf(evs))
	return n, nil
}

// Rewind points a session at a new branch that continues from seq of its current history, and
// puts the workspace files back as they were at seq. The abandoned branch stays stored and
// listed in the session's branches, with a snapshot of the files as they were when it was left.
// The restore is journaled with the branch switch: a crash before it is done is completed by
// the next open (Recover), so files never stay half-restored.
func (h *Harness) Rewind(sessionID string, seq uint64) (*Session, error) {
	tracked, err := h.tracksFiles(sessionID)
	if err != nil {
		return nil, err
	}
	commit := ""
	if tracked {
		if _, err := h.SnapshotWorkspace(sessionID, "", ""); err != nil {
			return nil, fmt.Errorf("rewind %s: keep the abandoned files: %w", sessionID, err)
		}
		failpoint.Hit("rewind.after-keep")
		cur, err := h.Session(sessionID)
		if err != nil {
			return nil, err
		}
		if commit, err = h.snapshotAt(cur.Branch, seq); err != nil {
			return nil, err
		}
	}
	s, jid, err := h.rewindEvents(sessionID, seq, commit)
	if err != nil || commit == "" {
		return s, err
	}
	failpoint.Hit("rewind.after-events")
	if err := h.restoreCommit(s, commit, seq, jid); err != nil {
		return s, fmt.Errorf("rewind %s: the conversation was rewound but the files were not: %w", s.Name, err)
	}
	return s, nil
}

// rewindEvents moves the session to a new branch forked at seq and records session.rewound;
// with a snapshot commit to restore, it journals the restore in the same transaction and
// returns the entry's id.
func (h *Harness) rewindEvents(sessionID string, seq uint64, commit string) (*Session, string, error) {
	if seq == 0 {
		return nil, "", fmt.Errorf("rewind %s: seq 0: %w (events are numbered from 1)", sessionID, ErrBadSeq)
	}
	var s *Session
	var evs []store.Event
	j := eventlog.NewJournal(eventlog.OpRestore)
	err := h.st.Update(func(tx *store.Tx) error {
		var err error
		if s, err = eventlog.GetSession(tx, sessionID); err != nil {
			return err
		}
		_, head, err := checkSeq(tx, s.Branch, seq)
		if err != nil {
			return err
		}
		old := s.Branch
		nb := fmt.Sprintf("%s.%d", s.ID, len(s.Branches))
		if _, err := tx.Fork(nb, old, seq); err != nil {
			return err
		}
		evs, err = tx.Append(nb, MustRecord(TypeSessionRewound, ActorUser,
			SessionRewound{FromBranch: old, AbandonedAt: head, ToSeq: seq}))
		if err != nil {
			return err
		}
		s.Branch = nb
		s.Branches = append(s.Branches, nb)
		if commit != "" {
			j.Session, j.Branch, j.Commit, j.Seq = s.ID, nb, commit, seq
			if err := eventlog.PutJournal(tx, j); err != nil {
				return err
			}
		}
		return eventlog.PutSession(tx, s)
	})
	if err != nil {
		return nil, "", fmt.Errorf("rewind %s: %w", sessionID, err)
	}
	h.Committed(s.ID, s.Branch, eventlog.EventsOf(evs))
	return s, j.ID, nil
}

// Events returns events from..to (inclusive; 0 means the head) of a session's current history.
func (h *Harness) Events(sessionID string, from, to uint64) ([]Event, error) {
	s, err := h.Session(sessionID)
	if err != nil {
		return nil, err
	}
	return h.BranchEvents(s.Branch, from, to)
}

// BranchEvents returns events from..to of any branch's full history.
func (h *Harness) BranchEvents(branch string, from, to uint64) ([]Event, error) {
	evs, err := h.st.ReadRange(branch, from, to)
	return eventlog.EventsOf(evs), err
}

// Verify checks the hash chains: of one session's every branch, or of everything when
// sessionID is empty.
func (h *Harness) Verify(sessionID string) (VerifyReport, error) {
	rep, err := h.verify(sessionID)
	return eventlog.VerifyReportOf(rep), err
}

// verify is Verify with the store's report.
func (h *Harness) verify(sessionID string) (store.VerifyReport, error) {
	if sessionID == "" {
		rep, err := h.st.VerifyAll()
		if err == nil {
			rep.Problems = append(rep.Problems, h.unfinished()...)
		}
		return rep, err
	}
	s, err := h.Session(sessionID)
	if err != nil {
		return store.VerifyReport{}, err
	}
	var total store.VerifyReport
	for _, b := range s.Branches {
		rep, err := h.st.VerifyBranch(b)
		if err != nil {
			return total, err
		}
		total.Branches++
		total.Events += rep.Events
		total.Problems = append(total.Problems, rep.Problems...)
	}
	return total, nil
}

// VerifyReport is the outcome of a hash-chain check (see Verify).
type VerifyReport = api.VerifyReport
