// Package runtimes is the harness's runtime room: what runs in a session's sandbox.
//
// It owns the sessions' live sandboxes (Runtime: a persistent shell, the workspace's
// snapshotter and a task manager, started lazily with the [sandbox] caps of the user's
// configuration, SandboxLimits, and stopped by Close or CloseSandbox), what isolation the
// machine enforces (Capabilities, Enforcement, DefaultEnforcement), what a turn's commands leave
// running (EndTurn kills it; DetachedTasks lists it, KillDetached ends it), background tasks in a
// session's sandbox (StartTask, Task, Tasks, KillTask, RunningTasks, each end recorded as
// task.completed), detached tasks in a process of their own under EXO_HOME/tasks (StartDetached,
// RunDetached, the process's body, DetachedTasks, DetachedOutput, KillDetached, and their ends
// recorded by RecordDetached and WatchDetached), the artifacts commands, tasks and tools
// keep their output in, redacted as it streams in (SaveArtifact), and each sandbox command's
// sandbox.exec span (RunCommand runs one in a session's shell; tasks' spans are recorded when
// they end). It names the setting that lists a fork's shadow repositories (AlternatesKey,
// Alternates), which a session's snapshotter borrows from.
//
// It may import exo/store, exo/sandbox, exo/harness/api, exo/harness/config, exo/harness/rundir
// and the rooms below it: exo/harness/eventlog, exo/harness/sealed and exo/harness/sessions. It
// imports nothing above it: the workspaces (exo/harness/workspaces) sit above it and call it.
// What it needs of them (the watcher of a new sandbox's workspace, the snapshots' progress, a
// snapshot once a background task ends) are the Hooks the harness gives it at construction.
package runtimes
