package cli

import (
	"context"

	"exo/app/thin"
	"exo/harness/api"
	"exo/harness/daemon"
	"exo/harness/relay"
)

// relayCLI is what the daemon runs for thin clients (app/thin): the command lines thin.Relayable
// allows, each with the client's working directory, stdio and Ctrl-C, and the daemon's own
// harness as its client, exactly as the same command line runs in a process of its own.
func (e *env) relayCLI() *daemon.CLI {
	return &daemon.CLI{Accepts: thin.Relayable, Run: func(ctx context.Context, c api.Client, inv relay.Invocation, sio relay.ServerIO) int {
		re := &env{opts: e.opts, demo: e.demo, relayHome: inv.Home, dir: inv.Dir, stdin: sio.Stdin, stdout: sio.Stdout, stderr: sio.Stderr,
			ctx: ctx, client: c, interrupts: sio.Interrupts, clientSet: inv.Set}
		return execute(re, inv.Args, e.opts)
	}}
}
