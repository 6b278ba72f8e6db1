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
// recorded by RecordDetached and WatchDetached), and the artifacts commands, tasks and tools
// keep their output in, redacted as it streams in (SaveArtifact).
//
// It may import exo/store, exo/sandbox, exo/harness/api, exo/harness/config, exo/harness/rundir
// and the rooms below it: exo/harness/eventlog, exo/harness/sealed, exo/harness/sessions and
// exo/harness/workspaces. It imports nothing above it. The workspaces reach it the other way,
// through the workspaces.Runtimes the harness gives them (Sandbox, CloseSandbox, Capabilities
// here): they are built before this room, which takes them at construction.
package runtimes
