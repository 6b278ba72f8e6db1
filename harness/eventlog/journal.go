package eventlog

import (
	"encoding/json"
	"fmt"
	"strings"
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
	// OpUnreadable marks a record that no longer decodes (a damaged page, a foreign write): its
	// ID is the record's key and Damage says why. Only its key tells what it was.
	OpUnreadable = "unreadable"
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
	// Damage is why an OpUnreadable record does not decode (never stored).
	Damage string `json:"-"`
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

// Journal lists the operations in progress. A record that does not decode is listed as
// OpUnreadable under its key rather than skipped, so that recovery can name it and drop the
// ones whose key says they are safe to drop (a streaming answer's), instead of leaving them in
// the journal for good.
func (l *Log) Journal() ([]JournalEntry, error) {
	var out []JournalEntry
	err := l.st.View(func(tx *store.Tx) error {
		return tx.Records(store.Journal, func(k string, v []byte) error {
			var e JournalEntry
			if err := json.Unmarshal(v, &e); err != nil || e.Op == "" {
				damage := "no operation"
				if err != nil {
					damage = err.Error()
				}
				out = append(out, JournalEntry{ID: k, Op: OpUnreadable, Damage: damage})
				return nil
			}
			e.ID = k // the key is what DropJournal removes
			out = append(out, e)
			return nil
		})
	})
	return out, err
}

// StreamedBranch returns the branch whose streaming answer a journal key holds, and whether
// the key is one (see SaveStreamed): the key alone tells, even when the record is unreadable.
func StreamedBranch(id string) (string, bool) {
	b, ok := strings.CutPrefix(id, OpAnswer+":")
	return b, ok && b != ""
}
