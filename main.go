// Command exo is a full-screen terminal agent harness: an event-sourced log of agent sessions with
// fork, rewind, PTY sandboxes and side-by-side monitoring. Built as exo-full, it is every command
// and the app; the thin exo (app/thin/exo) runs it, and the daemon's own binary (app/daemon)
// serves state when it sits beside it.
package main

import (
	"os"

	"exo/app/cli/local"
	"exo/app/cli/tui"
)

// buildTag names this build when a packager sets it (go build -ldflags "-X main.buildTag=v1.2");
// exo --version shows it.
var buildTag string

func main() { os.Exit(local.Main(buildTag, tui.App{})) }
