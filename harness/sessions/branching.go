package sessions

import (
	"fmt"
	"slices"

	"exo/harness/api"
	"exo/harness/eventlog"
	"exo/store"
)

// ForkOptions describes a fork.
type ForkOptions struct {
	// Name of the new session; a memorable one is made up when empty.
	Name string
	// Workspace of the new session (its own working copy); the source's when empty.
	Workspace string
	// Branch forks one of the source's branches (an abandoned one, say) instead of its current.
	Branch string
}

// ForkBranch returns the branch of src a fork starts from: o.Branch if it is one of src's.
func ForkBranch(src *api.Session, o ForkOptions) (string, error) {
	if o.Branch == "" || o.Branch == src.Branch {
		return src.Branch, nil
	}
	for _, b := range src.Branches {
		if b == o.Branch {
			return b, nil
		}
	}
	return "", fmt.Errorf("branch %s is not one of session %s's: %w", o.Branch, src.Name, api.ErrBadSeq)
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
		return 0, 0, fmt.Errorf("seq %d is past the head (%d): %w", seq, head, api.ErrBadSeq)
	}
	return seq, head, nil
}

// ForkEvents records the fork in the log; settings are added to the new session's. inTx, when
// not nil, runs in the same transaction once the new session is known (its journal entries).
func (sv *Directory) ForkEvents(sourceID string, seq uint64, o ForkOptions, settings map[string]string, inTx func(*store.Tx, *api.Session) error) (*api.Session, error) {
	if o.Name == "" {
		o.Name = eventlog.NewName()
	}
	if err := validName(o.Name); err != nil {
		return nil, err
	}
	n := &api.Session{ID: eventlog.NewID(), Name: o.Name, Agent: "default", Parent: sourceID}
	n.Branch, n.Branches = n.ID, []string{n.ID}
	var evs []store.Event
	err := sv.st.Update(func(tx *store.Tx) error {
		src, err := eventlog.GetSession(tx, sourceID)
		if err != nil {
			return err
		}
		if err := nameFree(tx, o.Name); err != nil {
			return err
		}
		from, err := ForkBranch(src, o)
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
		evs, err = tx.Append(n.Branch, eventlog.MustRecord(api.TypeSessionForked, api.ActorHarness, api.SessionForked{
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
	sv.log.Committed(n.ID, n.Branch, eventlog.EventsOf(evs))
	return n, nil
}

// RewindEvents moves the session to a new branch forked at seq and records session.rewound;
// with a snapshot commit to restore, it journals the restore in the same transaction and
// returns the entry's id.
func (sv *Directory) RewindEvents(sessionID string, seq uint64, commit string) (*api.Session, string, error) {
	if seq == 0 {
		return nil, "", fmt.Errorf("rewind %s: seq 0: %w (events are numbered from 1)", sessionID, api.ErrBadSeq)
	}
	var s *api.Session
	var evs []store.Event
	j := eventlog.NewJournal(eventlog.OpRestore)
	err := sv.st.Update(func(tx *store.Tx) error {
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
		evs, err = tx.Append(nb, eventlog.MustRecord(api.TypeSessionRewound, api.ActorUser,
			api.SessionRewound{FromBranch: old, AbandonedAt: head, ToSeq: seq}))
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
	sv.log.Committed(s.ID, s.Branch, eventlog.EventsOf(evs))
	return s, j.ID, nil
}

// Events returns events from..to (inclusive; 0 means the head) of a session's current history.
func (sv *Directory) Events(sessionID string, from, to uint64) ([]api.Event, error) {
	s, err := sv.Session(sessionID)
	if err != nil {
		return nil, err
	}
	return sv.BranchEvents(s.Branch, from, to)
}

// BranchEvents returns events from..to of any branch's full history.
func (sv *Directory) BranchEvents(branch string, from, to uint64) ([]api.Event, error) {
	evs, err := sv.st.ReadRange(branch, from, to)
	return eventlog.EventsOf(evs), err
}

// Verify checks the hash chains: of one session's every branch, or of everything when
// sessionID is empty.
func (sv *Directory) Verify(sessionID string) (api.VerifyReport, error) {
	rep, err := sv.verify(sessionID)
	return eventlog.VerifyReportOf(rep), err
}

// verify is Verify with the store's report.
func (sv *Directory) verify(sessionID string) (store.VerifyReport, error) {
	if sessionID == "" {
		rep, err := sv.st.VerifyAll()
		if err == nil {
			rep.Problems = append(rep.Problems, sv.hooks.Unfinished()...)
		}
		return rep, err
	}
	s, err := sv.Session(sessionID)
	if err != nil {
		return store.VerifyReport{}, err
	}
	var total store.VerifyReport
	for _, b := range s.Branches {
		rep, err := sv.st.VerifyBranch(b)
		if err != nil {
			return total, err
		}
		total.Branches++
		total.Events += rep.Events
		total.Problems = append(total.Problems, rep.Problems...)
	}
	return total, nil
}

// firstNonEmpty returns a unless it is empty, else b.
func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// BranchEventPages hands events from..to of any branch's full history to fn a page at a time,
// in memory the next page reuses (see api.EventPager).
func (sv *Directory) BranchEventPages(branch string, from, to uint64, fn func([]api.Event) error) error {
	var out []api.Event
	return sv.st.ScanRange(branch, from, to, func(evs []store.Event) error {
		out = slices.Grow(out[:0], len(evs))
		for _, e := range evs {
			out = append(out, eventlog.EventOf(e))
		}
		return fn(out)
	})
}
