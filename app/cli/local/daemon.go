package local

import (
	"exo/app/cli"
	"exo/harness"
	"exo/harness/config"
	"exo/harness/daemon"
)

// RunDaemon is `exo daemon`, for cli.Options.RunDaemon: the command line links the daemon's
// client, exo's binaries (exo-full's and exo-daemon's mains) its server.
func RunDaemon(o cli.DaemonOptions) error {
	h := harness.Options{DemoScript: o.DemoScript, Store: o.Store, ConfigFile: config.UserFile()}
	return daemon.Run(daemon.RunOptions{Home: o.Home, IdleTimeout: o.IdleTimeout, Harness: h,
		CLI: &daemon.CLI{Accepts: o.Relayed.Accepts, Run: o.Relayed.Run}})
}
