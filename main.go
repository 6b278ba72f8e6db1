// Command exo is a full-screen terminal agent harness: an event-sourced log of agent sessions with
// fork, rewind, PTY sandboxes and side-by-side monitoring.
package main

import (
	_ "embed"
	"os"

	"golang.org/x/sys/unix"

	"exo/app/cli"
	"exo/app/cli/local"
	"exo/harness"
	"exo/harness/config"
	"exo/harness/daemon"
	"exo/sandbox"
)

// buildTag names this build when a packager sets it (go build -ldflags "-X main.buildTag=v1.2");
// exo --version shows it.
var buildTag string

// demoScript is the scripted model's offline demo, built in so `exo` works from any directory.
//
//go:embed testdata/scripts/demo.yaml
var demoScript []byte

func main() {
	// exo holds secrets in memory: keep other processes of the user (sandboxed commands among
	// them, where PID namespaces are unavailable) from reading its memory or /proc environ.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	// The sandbox re-executes exo as its confinement helper just before it execs a shell:
	// Landlock and rlimits must bind that process, never exo itself.
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	os.Exit(cli.Execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, cli.Options{DemoScript: demoScript, BuildTag: buildTag, RunDaemon: runDaemon, Local: local.Hooks()}))
}

// runDaemon is `exo daemon`: the command line links the daemon's client, exo's binary its server.
func runDaemon(o cli.DaemonOptions) error {
	h := harness.Options{DemoScript: o.DemoScript, Store: o.Store, ConfigFile: config.UserFile()}
	return daemon.Run(daemon.RunOptions{Home: o.Home, IdleTimeout: o.IdleTimeout, Harness: h,
		CLI: &daemon.CLI{Accepts: o.Relayed.Accepts, Run: o.Relayed.Run}})
}
