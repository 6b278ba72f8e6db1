// Package workspaces is the harness's workspaces room: a session's files and their history.
//
// It records snapshots of a workspace as events (EnsureBaseline, SnapshotWorkspace, with the
// SnapshotHook governance installs), puts files back (RestoreCommit, RevertPaths, FileAtSnapshot),
// follows a workspace for edits made outside a turn (Watch), runs commands in a session's shell
// and records what they changed (Exec, UserExec, with their telemetry spans), forks and rewinds
// a session with its files (Fork, Rewind: the log's half is the sessions room's, the working copy
// this room's), and removes what exo made for sessions that are gone (RemoveSession, GC).
//
// It may import exo/store, exo/sandbox, exo/harness/api, exo/harness/secrets and the rooms
// below it: exo/harness/eventlog, exo/harness/sealed and exo/harness/sessions. It imports
// nothing above it: the live sandboxes are the runtime room's (exo/harness/runtimes, which
// starts a workspace's watcher and reports snapshot progress through this room), reached through
// the Runtimes given at construction.
package workspaces
