// Package sandbox runs commands for exo sessions: persistent shells in real PTYs,
// background tasks, confinement through a re-executed helper (namespaces, Landlock,
// rlimits), path checks for file tools, per-session workspaces, shadow-git snapshots
// and a workspace watcher.
//
// The package knows nothing about models, events or storage: large outputs go to an
// ArtifactSink that the harness provides, and results are plain values.
package sandbox
