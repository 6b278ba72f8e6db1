// Command exo-daemon is exo's daemon in a binary of its own: every command of exo-full but the
// full-screen app, built without the terminal UI's libraries, so the process that owns the store
// and streams answers maps less code. exo-full starts it (`exo-daemon daemon --home H`) when it
// sits beside it and was built with it (see harness/daemon/wire's FullBuild); otherwise exo-full
// runs the daemon itself, as `exo-full daemon`.
package main

import (
	"os"

	"exo/app/cli/local"
)

// buildTag names this build, as exo-full's main.buildTag.
var buildTag string

func main() { os.Exit(local.Main(buildTag, nil)) }
