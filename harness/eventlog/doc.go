// Package eventlog is the harness's bottom room: the session event log kept in store/.
//
// It owns the store handle and the vocabulary the store is opened with (OpenStore, StoreURL), the
// store's health (Damaged, Faulted, and the wire codes of the store's sentinels), appends (Append,
// AppendOn, AppendWith, with records held for a session's next commit: Hold, Release), the Session
// projection kept at each branch head and its checkpoints (State, BranchState, LoadState), the
// notices committed events and live deltas send to subscribers (Subscribe, Publish), the session
// records (GetSession, PutSession, ListSessions), the journal of operations in progress (Journal,
// PutJournal, DropJournal) and the conversion of stored events to the API's (EventOf, EventsOf,
// VerifyReportOf).
//
// It may import exo/store, exo/harness/api and exo/harness/config, and no other harness
// package: the rooms above it (sessions, models, workspaces, runtimes, the harness itself) call
// down into it, never the other way. What it needs from above is given at construction: the
// redaction of record data (Options.Redact), which the secrets service provides.
package eventlog
