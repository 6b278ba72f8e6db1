package harness

import (
	"context"

	"exo/harness/eventlog"
	"exo/harness/runtimes"
	"exo/harness/secrets"
	"exo/sandbox"
	"exo/store"
)

// The names below forward to the rooms what the files still at the top level (recovery,
// backups) call by their old names. Each goes when its last caller moves. runtimeHooks wires
// the runtime room to the workspaces above it.

// journalEntry is an operation in progress (eventlog.JournalEntry).
type journalEntry = eventlog.JournalEntry

// The journaled operations (see eventlog).
const (
	opForkClone  = eventlog.OpForkClone
	opRestore    = eventlog.OpRestore
	opDelete     = eventlog.OpDelete
	opAnswer     = eventlog.OpAnswer
	opUnreadable = eventlog.OpUnreadable
)

// dropJournal removes a finished operation's record inside a transaction.
func dropJournal(tx *store.Tx, id string) error { return eventlog.DropJournal(tx, id) }

// streamedBranch is eventlog.StreamedBranch.
func streamedBranch(id string) (string, bool) { return eventlog.StreamedBranch(id) }

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

// restoreCommit puts a session's workspace back to a snapshot commit (see
// workspaces.RestoreCommit).
func (h *Harness) restoreCommit(s *Session, commit string, seq uint64, jid string) error {
	return h.RestoreCommit(s, commit, seq, jid)
}

// rollbackClone removes a working copy a fork did not finish (see workspaces.RollbackClone).
func (h *Harness) rollbackClone(e journalEntry) error { return h.RollbackClone(e) }

// finishDelete removes a delete's paths that no live session uses (see workspaces.FinishDelete).
func (h *Harness) finishDelete(e journalEntry) (removed, problems []string) {
	return h.FinishDelete(e)
}

// alternatesKey is the session setting listing a fork's shadow repositories.
const alternatesKey = runtimes.AlternatesKey

// firstNonEmpty returns a unless it is empty, else b.
func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// runtimeHooks are the runtime room's hooks into the workspaces (runtimes.Hooks): built
// before them, it finds them through the harness when it calls.
func (h *Harness) runtimeHooks() runtimes.Hooks {
	return runtimes.Hooks{
		Watch:     func(rt *runtimes.Runtime) (context.CancelFunc, error) { return h.Workspaces.Watch(rt) },
		Progress:  func(sessionID string) sandbox.ProgressFunc { return h.Workspaces.ProgressReporter(sessionID) },
		TaskEnded: func(sessionID string) { _, _ = h.Workspaces.SnapshotWorkspace(sessionID, "", "") },
	}
}
