package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"exo/app/thin"
	"exo/harness/api"
	"exo/harness/relay"
)

// Relayed is what the daemon runs for thin clients: Accepts says whether it runs a command
// line, Run runs one against the daemon's own harness (c) and returns its exit code.
type Relayed struct {
	Accepts func(args []string) bool
	Run     func(ctx context.Context, c api.Client, inv relay.Invocation, sio relay.ServerIO) int
}

// relayCLI is what the daemon runs for thin clients (app/thin): the command lines thin.Relayable
// allows, each with the client's working directory, stdio and Ctrl-C, and the daemon's own
// harness as its client, exactly as the same command line runs in a process of its own.
func (e *env) relayCLI() *Relayed {
	return &Relayed{Accepts: relayable, Run: func(ctx context.Context, c api.Client, inv relay.Invocation, sio relay.ServerIO) int {
		if h := homeFlag(inv.Args); h != "" {
			if !filepath.IsAbs(h) {
				h = filepath.Join(inv.Dir, h)
			}
			if filepath.Clean(h) != filepath.Clean(inv.Home) {
				fmt.Fprintf(sio.Stderr, "exo: the command line's --home is %s, but its client sent EXO_HOME %s: not run\n", h, inv.Home)
				return ExitUsage
			}
		}
		telemetryNotice(sio.Stderr, inv.Telemetry, relay.TelemetryEnv(os.Environ()), os.Getpid())
		re := &env{opts: e.opts, demo: e.demo, relayHome: inv.Home, dir: inv.Dir, stdin: sio.Stdin, stdout: sio.Stdout, stderr: sio.Stderr,
			ctx: ctx, client: c, interrupts: sio.Interrupts, clientSet: inv.Set}
		return execute(re, inv.Args, e.opts)
	}}
}

// relayable says whether the daemon runs a command line for a thin client: one thin.Relayable
// allows, whose --home exo's own parsing finds where the thin client's scan found it. A flag
// that takes the next argument as its value hides a --home from the scan (exo new --name
// --home=/b names the session "--home=/b"): the thin client then asked the daemon of another
// EXO_HOME than the command line's, so the full exo runs it instead.
func relayable(args []string) bool {
	return thin.Relayable(args) && homeFlag(args) == thin.HomeArg(args)
}

// homeFlag returns the --home that exo's command line parsing finds in args ("" for none); a
// line it cannot parse (its command fails with a usage error before it reads anything) has the
// thin client's.
func homeFlag(args []string) string {
	if !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--home") }) {
		return "" // the common line: no need to build the command tree (a third of a millisecond)
	}
	cmd, rest, err := newRoot(&env{}).Find(args)
	if err != nil || cmd.ParseFlags(rest) != nil {
		return thin.HomeArg(args)
	}
	h, _ := cmd.Flags().GetString("home")
	return h
}
