// Package sandbox runs commands for exo sessions: persistent shells in real PTYs,
// background tasks, confinement through a re-executed helper (namespaces, Landlock,
// rlimits), path checks for file tools, per-session workspaces, shadow-git snapshots
// and a workspace watcher.
//
// The package knows nothing about models, events or storage: large outputs go to an
// ArtifactSink that the harness provides, and results are plain values.
//
// Wiring, in short:
//
//   - main.go dispatches the hidden subcommand before anything else:
//     if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand { os.Exit(sandbox.HelperMain(os.Args[2:])) }.
//     Confinement (Landlock, rlimits, mounts) is applied only in that helper process,
//     which then execs the shell or task; never in exo's own process.
//   - Probe once at start-up; exo doctor prints Capabilities.String. Pass the result to
//     NewShell and NewTaskManager, which decide the Enforcement (refusing under the
//     Refuse policy when something is unavailable) and report it in every Result.
//   - One Shell per session (started lazily on the first Run), one TaskManager per
//     session for background commands; both take the same Config.
//   - One Snapshotter per workspace (ShadowDir(home, workspace) names its repository);
//     only one process should snapshot a workspace at a time.
//   - CloneWorkspace gives a forked session its own files; Watch reports changes
//     between snapshots.
//
// The model text (Result.Output, TaskInfo.Output, artifacts) has every escape sequence
// removed; the live streams keep SGR colours only. Output is processed as it streams,
// so memory stays bounded whatever its size.
package sandbox
