// Command exo-daemon is exo's daemon in a binary of its own: every command of exo-full but the
// full-screen app, built without the terminal UI's libraries, so the process that owns the store
// and streams answers maps less code. exo-full starts it (`exo-daemon daemon --home H`) when it
// sits beside it and was built with it (see harness/daemon/wire's FullBuild); otherwise exo-full
// runs the daemon itself, as `exo-full daemon`.
package main

import (
	"os"

	"golang.org/x/sys/unix"

	"exo/app/cli"
	"exo/app/cli/local"
	"exo/harness/demo"
	"exo/sandbox"
)

// buildTag names this build, as exo-full's main.buildTag.
var buildTag string

func main() {
	// As exo-full's main: no other process of the user reads the daemon's memory, and the
	// sandbox's confinement helper runs before anything else.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	os.Exit(cli.Execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, cli.Options{DemoScript: demo.Script, BuildTag: buildTag,
		RunDaemon: local.RunDaemon, Local: local.Hooks()}))
}
