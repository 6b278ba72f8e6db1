package api

import (
	"context"
)

// Lifecycle archives and removes sessions and collects the folders they leave behind.
type Lifecycle interface {
	// ArchiveSession hides a session from lists and the siblings pane (archived false brings it
	// back); recorded as session.archived.
	ArchiveSession(ctx context.Context, ref string, archived bool) (*Session, error)
	// RemoveSession deletes a session: marked deleted in the log (its events stay), its fork's
	// working copy, snapshots, sandbox and executor state removed when no other session uses
	// them. ErrBusy while a turn or a background task runs on it.
	RemoveSession(ctx context.Context, ref string) (RemoveResult, error)
	// GC lists (dryRun) or removes the folders of exo's that no live session uses.
	GC(ctx context.Context, dryRun bool) (GCReport, error)
	// Backup writes a consistent copy of the event store to path (absolute, not existing; ""
	// for EXO_HOME/backups/exo-TIME.db) while the daemon runs on. ErrInvalid on an etcd store.
	Backup(ctx context.Context, path string) (BackupResult, error)
}

// BackupResult is where a backup was written and its size.
type BackupResult struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
}

// RemoveResult is a removed session and the folders removed with it.
type RemoveResult struct {
	Session *Session `json:"session"`
	Removed []string `json:"removed"`
}
