package harness

import (
	"encoding/json"
	"fmt"
	"time"

	"exo/store"
)

// Session is the durable record of a session: its identity and the branches it has had.
// Everything else about it is a projection of its current branch's events.
type Session struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Agent     string    `json:"agent"`
	Branch    string    `json:"branch"`
	Branches  []string  `json:"branches"`
	Parent    string    `json:"parent,omitempty"`
	ParentSeq uint64    `json:"parent_seq,omitempty"`
	Workspace string    `json:"workspace"`
	Created   time.Time `json:"created"`
	// Settings are per-session options (model, network, scope…) kept by the harness.
	Settings map[string]string `json:"settings,omitempty"`
	// Node is the daemon that runs the session when it is another daemon's on a shared store
	// (set when read from that daemon's records; a daemon never stores it for its own).
	Node string `json:"node,omitempty"`
	// Archived hides the session from lists and the siblings pane (exo session archive); it
	// stays whole and usable.
	Archived bool `json:"archived,omitempty"`
	// Deleted marks a removed session (exo session rm): its events stay in the log, but no
	// list or reference finds it any more.
	Deleted bool `json:"deleted,omitempty"`
}

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
type Event = store.Event

// Record is an event to append, as the harness API takes it.
type Record = store.Record
