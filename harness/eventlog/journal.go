package eventlog

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
	// OpForkClone is a fork's working copy being made: rolled back (the copy removed).
	OpForkClone = "fork-clone"
	// OpRestore is a workspace being put back to a snapshot: completed (done again).
	OpRestore = "restore"
	// OpDelete is a removed session's files being removed: completed (done again).
	OpDelete = "delete"
	// OpAnswer is a model's answer streaming: what had arrived, saved as it streams (see
	// SaveStreamed), recorded as an answer cut by the kill if the process dies before the
	// answer, its cut or its failure is in the log.
	OpAnswer = "answer"
)

// JournalEntry is one operation in progress.
type JournalEntry struct {
	ID      string   `json:"id"`
	Op      string   `json:"op"`
	Session string   `json:"session,omitempty"`
	Branch  string   `json:"branch,omitempty"`
	Commit  string   `json:"commit,omitempty"`
	Seq     uint64   `json:"seq,omitempty"`
	Dir     string   `json:"dir,omitempty"`    // the working copy a fork is making
	Source  string   `json:"source,omitempty"` // the workspace it copies
	Paths   []string `json:"paths,omitempty"`  // the files a delete removes
	// Answer is what a streaming answer had sent when last saved (OpAnswer; Seq is its
	// model.requested).
	Answer  *StreamedAnswer `json:"answer,omitempty"`
	Started time.Time       `json:"started"`
}

// NewJournal starts an entry for op.
func NewJournal(op string) JournalEntry {
	return JournalEntry{ID: NewID(), Op: op, Started: time.Now().UTC()}
}

// PutJournal records an operation in progress inside a transaction.
func PutJournal(tx *store.Tx, e JournalEntry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("journal %s: %w", e.Op, err)
	}
	return tx.PutRecord(store.Journal, e.ID, b)
}

// DropJournal removes a finished operation's record inside a transaction ("" does nothing).
func DropJournal(tx *store.Tx, id string) error {
	if id == "" {
		return nil
	}
	return tx.DeleteRecord(store.Journal, id)
}

// journal lists the operations in progress.
func (l *Log) Journal() ([]JournalEntry, error) {
	var out []JournalEntry
	err := l.st.View(func(tx *store.Tx) error {
		return tx.Records(store.Journal, func(_ string, v []byte) error {
			var e JournalEntry
			if json.Unmarshal(v, &e) == nil {
				out = append(out, e)
			}
			return nil
		})
	})
	return out, err
}
