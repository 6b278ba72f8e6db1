package harness

import (
	"context"
	"os"
	"strings"
	"time"

	"exo/harness/eventlog"
	"exo/harness/secrets"
	"exo/harness/workspaces"
	"exo/sandbox"
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

// recordSandboxSpan records the span of a background command once it has ended (see
// workspaces.RecordSandboxSpan).
func (h *Harness) recordSandboxSpan(sessionID, command, mode string, started, ended time.Time, exit int, killed string) {
	h.RecordSandboxSpan(sessionID, command, mode, started, ended, exit, killed)
}

// progressReporter publishes a session's snapshot progress (see workspaces.ProgressReporter).
func (h *Harness) progressReporter(sessionID string) sandbox.ProgressFunc {
	return h.ProgressReporter(sessionID)
}

// watchWorkspace follows a session's workspace for outside edits (see workspaces.Watch).
func (h *Harness) watchWorkspace(sessionID string, rt *Runtime) (context.CancelFunc, error) {
	return h.Watch(sessionID, rt.view())
}

// alternatesKey is the session setting listing a fork's shadow repositories.
const alternatesKey = workspaces.AlternatesKey

// splitLines splits a newline-separated setting, dropping empty lines.
func splitLines(s string) []string { return workspaces.SplitLines(s) }

// oneLine squeezes text onto one line of at most 200 runes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		return string(r[:199]) + "…"
	}
	return s
}

// firstNonEmpty returns a unless it is empty, else b.
func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// runtimeRoom is the runtime room (the live sandboxes, still at the top level) as the
// workspaces reach it (workspaces.Runtimes).
type runtimeRoom struct{ h *Harness }

// Sandbox returns (starting lazily) a session's live sandbox.
func (r runtimeRoom) Sandbox(sessionID string) (workspaces.Sandbox, error) {
	rt, err := r.h.Runtime(sessionID)
	if err != nil {
		return workspaces.Sandbox{}, err
	}
	return rt.view(), nil
}

// CloseSandbox stops a session's live sandbox, if it has one.
func (r runtimeRoom) CloseSandbox(id string) {
	h := r.h
	h.rt.mu.Lock()
	rt := h.rt.m[id]
	delete(h.rt.m, id)
	h.rt.mu.Unlock()
	if rt == nil {
		return
	}
	if rt.stopWatch != nil {
		rt.stopWatch()
	}
	rt.Tasks.Close()
	rt.Shell.Close()
	rt.Snaps.Close()
}

// Capabilities is what isolation this machine enforces.
func (r runtimeRoom) Capabilities() sandbox.Capabilities { return r.h.Capabilities() }

// view is the part of a runtime the workspaces use.
func (rt *Runtime) view() workspaces.Sandbox {
	return workspaces.Sandbox{Workspace: rt.Workspace, Shell: rt.Shell, Snaps: rt.Snaps, Run: &rt.runMu, Baseline: &rt.baseline}
}
