package sessions

import (
	"fmt"
	"slices"
	"strings"

	"exo/harness/api"
	"exo/harness/eventlog"
	"exo/store"
)

// AdoptEvents moves a session onto a new branch that continues another branch from its head
// (a kept attempt's) and records the event rec makes as that branch's first: O(1), nothing is
// copied, and the session's own branch stays stored and listed. borrow, when set, is added to
// the session's alternates setting (altKey) so its snapshots can read the adopted files; with
// commit, the restore of the files is journaled in the same transaction (its entry's id is
// returned).
func (sv *Directory) AdoptEvents(sessionID, from, altKey, borrow, commit string, rec func(old string, abandoned, at uint64) store.Record) (*api.Session, string, error) {
	var s *api.Session
	var evs []store.Event
	j := eventlog.NewJournal(eventlog.OpRestore)
	err := sv.st.Update(func(tx *store.Tx) error {
		var err error
		if s, err = eventlog.GetSession(tx, sessionID); err != nil {
			return err
		}
		if from == s.Branch || slices.Contains(s.Branches, from) {
			return fmt.Errorf("branch %s is the session's own: %w", from, api.ErrInvalid)
		}
		abandoned, _, err := tx.Head(s.Branch)
		if err != nil {
			return err
		}
		at, _, err := tx.Head(from)
		if err != nil {
			return err
		}
		old := s.Branch
		nb := fmt.Sprintf("%s.%d", s.ID, len(s.Branches))
		if _, err := tx.Fork(nb, from, at); err != nil {
			return err
		}
		if evs, err = tx.Append(nb, rec(old, abandoned, at)); err != nil {
			return err
		}
		s.Branch = nb
		s.Branches = append(s.Branches, nb)
		if borrow != "" {
			if s.Settings == nil {
				s.Settings = map[string]string{}
			}
			alts := strings.Fields(s.Settings[altKey])
			if !slices.Contains(alts, borrow) {
				s.Settings[altKey] = strings.Join(append(alts, borrow), "\n")
			}
		}
		if commit != "" {
			j.Session, j.Branch, j.Commit, j.Seq = s.ID, nb, commit, at
			if err := eventlog.PutJournal(tx, j); err != nil {
				return err
			}
		}
		return eventlog.PutSession(tx, s)
	})
	if err != nil {
		return nil, "", fmt.Errorf("keep %s in %s: %w", from, sessionID, err)
	}
	sv.log.Committed(s.ID, s.Branch, eventlog.EventsOf(evs))
	return s, j.ID, nil
}
