package eventlog

import (
	"encoding/json"
	"fmt"

	"exo/harness/api"
	"exo/store"
)

// PutSession writes a session record inside a transaction.
func PutSession(tx *store.Tx, s *api.Session) error {
	raw, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode session %s: %w", s.ID, err)
	}
	return tx.PutRecord(store.Sessions, s.ID, raw)
}

// GetSession reads a session record inside a transaction.
func GetSession(tx *store.Tx, id string) (*api.Session, error) {
	raw, err := tx.Record(store.Sessions, id)
	if err != nil {
		return nil, err
	}
	var s api.Session
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("decode session %s: %w", id, err)
	}
	if s.Deleted {
		return nil, fmt.Errorf("session %s (%s) was deleted: %w", s.Name, id, api.ErrNoSession)
	}
	return &s, nil
}

// ListSessions reads every session record that is not deleted.
func ListSessions(tx *store.Tx) ([]*api.Session, error) {
	var out []*api.Session
	err := tx.Records(store.Sessions, func(_ string, v []byte) error {
		var s api.Session
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
