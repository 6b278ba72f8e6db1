// Package sessions is the harness's sessions room: the session records and their branches.
//
// It creates sessions (NewSession, with a project id read from the workspace's git remote),
// resolves references (Session: id, name or unique id prefix), lists and updates them, archives
// them, records the log's half of a fork (ForkEvents) and of a rewind (RewindEvents), reads and
// verifies histories (Events, BranchEvents, Verify), previews a rewind (RewindPreview,
// BranchPoints, CommonHistory), finds the sessions of other daemons on a shared store and takes
// them over (PeerSessions, TakeOver, WatchPeers), and reads what a prompt's @mentions attach
// from the workspace (Attach, ListFiles), with secrets kept out.
//
// It may import exo/store, exo/sandbox (to read workspace files), exo/harness/api,
// exo/harness/eventlog and exo/harness/sealed: rooms below it. It imports no room above it:
// the workspace half of a fork or rewind is the harness's (it joins this room with the
// workspaces), and what it needs from the harness's recovery comes as Hooks given at
// construction.
package sessions
