package harness

import (
	"os"

	"exo/harness/eventlog"
	"exo/harness/secrets"
	"exo/store"
)

// The names below forward to the services what the files still at the top level (recovery,
// backups, tasks, detached tasks, sandboxes) call by their old names, so that those files keep
// their content while they wait for a room of their own. Each goes when its last caller moves.

// publisher is the harness's broker field: it publishes through the event log.
type publisher struct{ log *eventlog.Log }

// publish sends a live notice to subscribers.
func (p publisher) publish(n Notice) { p.log.Publish(n) }

// journalEntry is an operation in progress (eventlog.JournalEntry).
type journalEntry = eventlog.JournalEntry

// The journaled operations (see eventlog).
const (
	opForkClone = eventlog.OpForkClone
	opRestore   = eventlog.OpRestore
	opDelete    = eventlog.OpDelete
)

// dropJournal removes a finished operation's record inside a transaction.
func dropJournal(tx *store.Tx, id string) error { return eventlog.DropJournal(tx, id) }

// journal lists the operations in progress.
func (h *Harness) journal() ([]journalEntry, error) { return h.Journal() }

// redactBytes redacts sealed secrets' values from record data (the log's Options.Redact).
func (h *Harness) redactBytes(b []byte) []byte {
	if r := h.redactor(); r != nil {
		return r.Bytes(b)
	}
	return b
}

// redactor returns the current redactor (nil when no secret is sealed).
func (h *Harness) redactor() *secrets.Redactor { return h.Redactor() }

// redactedTail returns about the last n bytes of a file, redacted (see sealed.RedactedTail).
func (h *Harness) redactedTail(f *os.File, n int64) string { return h.RedactedTail(f, n) }
