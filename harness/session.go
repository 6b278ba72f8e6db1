package harness

import (
	"encoding/json"
	"fmt"

	"exo/harness/api"
	"exo/store"
)

// putSession writes a session record inside a transaction.
func putSession(tx *store.Tx, s *Session) error {
	raw, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode session %s: %w", s.ID, err)
	}
	return tx.PutRecord(store.Sessions, s.ID, raw)
}

// getSession reads a session record inside a transaction.
func getSession(tx *store.Tx, id string) (*Session, error) {
	raw, err := tx.Record(store.Sessions, id)
	if err != nil {
		return nil, err
	}
	var s Session
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("decode session %s: %w", id, err)
	}
	if s.Deleted {
		return nil, fmt.Errorf("session %s (%s) was deleted: %w", s.Name, id, ErrNoSession)
	}
	return &s, nil
}

// listSessions reads every session record that is not deleted.
func listSessions(tx *store.Tx) ([]*Session, error) {
	var out []*Session
	err := tx.Records(store.Sessions, func(_ string, v []byte) error {
		var s Session
		if err := json.Unmarshal(v, &s); err != nil {
			return fmt.Errorf("decode session: %w", err)
		}
		if !s.Deleted {
			out = append(out, &s)
		}
		return nil
	})
	return out, err
}

// Event is a committed event as the harness API hands it out (the store's type), so the UI never
// imports the store.
type Event = api.Event

// Record is an event to append, as the harness API takes it.
type Record = store.Record
