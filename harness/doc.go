// Package harness is exo's trusted core: sessions and their branches, typed events, projections,
// fork and rewind, and the API through which the UI and executors reach state.
//
// Everything the harness knows is folded from the event log in store/: a Session record names a
// session's branches, and every other fact (status, conversation, usage) is a projection of events.
//
// # The map
//
// The harness is a few rooms, each a package with one concern whose doc.go says what it owns
// and what it may import. Imports point down this list, never up; a room needs something of a
// room above it only through a small interface or function given at construction (named below).
//
//   - harness/api: the protocol (events, the Session projection, requests, errors). A leaf.
//   - harness/eventlog: the store handle and its vocabulary, appends and held records, the Session
//     projection and its checkpoints, notices to subscribers, session records, the journal,
//     artifacts, the store's health (Damaged, Faulted). Takes the redaction of record data as
//     eventlog.Options.Redact.
//   - harness/sealed: the sealed secrets in the store and the redaction of their values.
//   - harness/models: the registered models and the providers built from them. Takes a
//     models.SecretOpener (the sealed secrets).
//   - harness/sessions: session records, references, the log's half of fork and rewind,
//     verification, peers, mentions. Imports eventlog and sealed; takes sessions.Hooks (the
//     recovery's records for an interrupted turn, the unfinished journal entries).
//   - harness/runtimes: the runtime, what runs in a session's sandbox: the live sandboxes and
//     their caps, the commands run in a session's shell with their spans, what a turn's commands
//     leave running, background tasks, detached tasks and their process (RunDetached), the
//     redacted artifacts of their output. Imports eventlog, sealed and sessions; takes
//     runtimes.Hooks (the workspaces' watcher, their snapshot progress, a snapshot once a task
//     ends: the workspaces are built after it, and seams.go's runtimeHooks finds them when called).
//   - harness/workspaces: a session's files: snapshots, restores, the watcher, commands run in
//     its shell, Fork and Rewind with their working copies, RemoveSession and GC. Imports
//     eventlog, sealed, sessions and runtimes (whose live sandboxes it calls directly).
//   - harness (this package): Harness, which opens the rooms bottom up and embeds them (so their
//     methods are the harness's: h.Append is the log's, h.Fork the workspaces', h.StartTask the
//     runtime's), and what is the composition of rooms rather than one room's concern: recovery at
//     open (recover.go: it finishes the workspaces' journaled operations, closes the turns the
//     sessions' logs left open, clears the sandboxes' shadow repositories and sweeps backups' half
//     copies) and backups (backup.go: a copy of the log's store, its place judged against EXO_HOME
//     and every session's workspace). The store's health is the log's (it holds the store handle);
//     Diagnose stays in harness.go, since it judges EXO_HOME by what every room keeps there
//     (homeEvidence). names.go gives the API's and the rooms' types their harness names; seams.go
//     forwards the names recovery and backups still call and wires the runtime room's hooks.
//
// Above the harness, executors, the service and the daemon call it; nothing here imports them.
package harness
