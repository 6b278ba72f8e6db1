package harness

import (
	"encoding/json"
	"fmt"
	"time"

	"exo/store"
)

// Journaled operations: each is recorded before its first step and its record is removed in
// the same transaction as its last event, so an operation cut short by a crash is found on the
// next open and completed or rolled back (Recover).
const (
	// opForkClone is a fork's working copy being made: rolled back (the copy removed).
	opForkClone = "fork-clone"
	// opRestore is a workspace being put back to a snapshot: completed (done again).
	opRestore = "restore"
	// opDelete is a removed session's files being removed: completed (done again).
	opDelete = "delete"
)

// journalEntry is one operation in progress.
type journalEntry struct {
	ID      string    `json:"id"`
	Op      string    `json:"op"`
	Session string    `json:"session,omitempty"`
	Branch  string    `json:"branch,omitempty"`
	Commit  string    `json:"commit,omitempty"`
	Seq     uint64    `json:"seq,omitempty"`
	Dir     string    `json:"dir,omitempty"`    // the working copy a fork is making
	Source  string    `json:"source,omitempty"` // the workspace it copies
	Paths   []string  `json:"paths,omitempty"`  // the files a delete removes
	Started time.Time `json:"started"`
}

// newJournal starts an entry for op.
func newJournal(op string) journalEntry {
	return journalEntry{ID: NewID(), Op: op, Started: time.Now().UTC()}
}

// putJournal records an operation in progress inside a transaction.
func putJournal(tx *store.Tx, e journalEntry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("journal %s: %w", e.Op, err)
	}
	return tx.PutRecord(store.Journal, e.ID, b)
}

// dropJournal removes a finished operation's record inside a transaction ("" does nothing).
func dropJournal(tx *store.Tx, id string) error {
	if id == "" {
		return nil
	}
	return tx.DeleteRecord(store.Journal, id)
}

// journal lists the operations in progress.
func (h *Harness) journal() ([]journalEntry, error) {
	var out []journalEntry
	err := h.st.View(func(tx *store.Tx) error {
		return tx.Records(store.Journal, func(_ string, v []byte) error {
			var e journalEntry
			if json.Unmarshal(v, &e) == nil {
				out = append(out, e)
			}
			return nil
		})
	})
	return out, err
}
