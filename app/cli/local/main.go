package local

import (
	"os"

	"golang.org/x/sys/unix"

	"exo/app/cli"
	"exo/harness/demo"
	"exo/sandbox"
)

// Main is the whole of exo-full's and exo-daemon's mains, which differ only in app (the
// full-screen app, nil in the daemon's binary): it returns the process's exit code.
func Main(buildTag string, app cli.App) int {
	// exo holds secrets in memory: keep other processes of the user (sandboxed commands among
	// them, where PID namespaces are unavailable) from reading its memory or /proc environ.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	// The sandbox re-executes exo as its confinement helper just before it execs a shell:
	// Landlock and rlimits must bind that process, never exo itself.
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		return sandbox.HelperMain(os.Args[2:])
	}
	return cli.Execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, cli.Options{DemoScript: demo.Script, BuildTag: buildTag,
		RunDaemon: RunDaemon, Local: Hooks(), App: app})
}
