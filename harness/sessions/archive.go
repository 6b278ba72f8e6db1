package sessions

import (
	"fmt"

	"exo/harness/api"
	"exo/harness/eventlog"
	"exo/store"
)

// ArchiveSession hides a session from lists and the siblings pane (or brings it back),
// recorded as session.archived. Nothing else changes.
func (sv *Directory) ArchiveSession(ref string, archived bool) (*api.Session, error) {
	s, err := sv.Session(ref)
	if err != nil {
		return nil, err
	}
	id := s.ID
	var evs []store.Event
	err = sv.st.Update(func(tx *store.Tx) error {
		var err error
		if s, err = eventlog.GetSession(tx, id); err != nil {
			return err
		}
		if s.Archived == archived {
			return nil
		}
		s.Archived = archived
		if evs, err = tx.Append(s.Branch, eventlog.MustRecord(api.TypeSessionArchived, api.ActorUser, api.SessionArchived{Archived: archived})); err != nil {
			return err
		}
		return eventlog.PutSession(tx, s)
	})
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", id, err)
	}
	sv.log.Committed(s.ID, s.Branch, eventlog.EventsOf(evs))
	return s, nil
}
