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
// below it: exo/harness/eventlog, exo/harness/sealed, exo/harness/sessions and
// exo/harness/runtimes. It imports nothing above it. The live sandboxes are the runtime room's,
// which it takes at construction and calls directly: a command runs in a session's shell
// through runtimes.RunCommand. The runtime room calls back only through the runtimes.Hooks the
// harness wires to this room's Watch, ProgressReporter and SnapshotWorkspace.
package workspaces
