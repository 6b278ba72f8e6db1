// Command exo is a full-screen terminal agent harness: an event-sourced log of agent sessions with
// fork, rewind, PTY sandboxes and side-by-side monitoring. Built as exo-full, it is every command
// and the app; the thin exo (app/thin/exo) runs it, and the daemon's own binary (app/daemon)
// serves state when it sits beside it.
package main

import (
	"os"

	"golang.org/x/sys/unix"

	"exo/app/cli"
	"exo/app/cli/local"
	"exo/app/cli/tui"
	"exo/harness/demo"
	"exo/sandbox"
)

// buildTag names this build when a packager sets it (go build -ldflags "-X main.buildTag=v1.2");
// exo --version shows it.
var buildTag string

func main() {
	// exo holds secrets in memory: keep other processes of the user (sandboxed commands among
	// them, where PID namespaces are unavailable) from reading its memory or /proc environ.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	// The sandbox re-executes exo as its confinement helper just before it execs a shell:
	// Landlock and rlimits must bind that process, never exo itself.
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	os.Exit(cli.Execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, cli.Options{DemoScript: demo.Script, BuildTag: buildTag,
		RunDaemon: local.RunDaemon, Local: local.Hooks(), App: tui.App{}}))
}
