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
//     between snapshots, from a child process of this executable that the package's init
//     serves (fsnotify can be crashed by a hostile workspace; a crash only restarts it).
//
// The workspace and the sandbox's tmp dir are the agent's, so exo treats them as hostile:
//
//   - exo's own file access to them (file tools, the shell's command file, restores, fork
//     copies) goes through Dir, which never follows a link (openat2 RESOLVE_BENEATH |
//     RESOLVE_NO_SYMLINKS, else an O_NOFOLLOW walk), even one swapped in mid-operation;
//   - every git command is built by one hardened function (no system or global config, no
//     hooks, fsmonitor, filters, pagers or other configured commands), and git's worktree add
//     for a fork runs under the helper, able to write only where it must;
//   - inside, exo's home (Config.Hide) is covered by an empty tmpfs, /run, the runtime dir,
//     exo's daemon dir and every bound socket outside are hidden, abstract sockets and signals
//     are scoped (Landlock ABI 6), a seccomp filter refuses set-id files, binds are nosuid, and
//     a pids cgroup caps processes for root too. Enforcement says which of these hold.
//   - the caps fit the machine (MachineLimits, from its cores, memory and disk at run time):
//     each sandbox has its pids, memory and cpu cgroups where writable (RLIMIT_* otherwise),
//     each command a pids cgroup of its own, so what it leaves running is a Detached group,
//     killed as a fork bomb when the cap refuses forks and otherwise at the turn's end
//     (Shell.EndTurn); the tmp dir is a tmpfs of Limits.TmpSize (RLIMIT_FSIZE without mounts),
//     emptied at the turn's end without following links or crossing into bind mounts.
//
// The model text (Result.Output, TaskInfo.Output, artifacts) has every escape sequence
// removed; the live streams keep SGR colours only. Output is processed as it streams,
// so memory stays bounded whatever its size.
package sandbox
