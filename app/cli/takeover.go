package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"exo/harness/api"
)

// takeoverCmd is `exo takeover SESSION`: the take-over of a session whose daemon died, on a
// store shared through etcd.
func takeoverCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "takeover SESSION",
		Short: "Make a session of a daemon that is gone (shared etcd store) this daemon's",
		Long: "On a store shared through etcd, a session belongs to the daemon that runs it. Once that\n" +
			"daemon is gone (its lease expired), takeover claims the session here: it is appended to by\n" +
			"this daemon from now on, and a turn the dead daemon left running is recorded as interrupted.\n" +
			"Refused while the other daemon is alive, and for an orphaned session (its workspace is not\n" +
			"reachable from this machine). `exo sessions` shows each remote session's daemon and state.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withClient(func(ctx context.Context, c api.Client) error {
				s, err := c.TakeOver(ctx, args[0])
				switch {
				case errors.Is(err, api.ErrNoSession) || errors.Is(err, api.ErrAmbiguous):
					return usageErr(err)
				case api.HasCode(err, api.CodeNotOwner):
					return failf(ExitFailure, "%v (its daemon is alive: only it writes to the session)", err)
				case err != nil:
					return err
				}
				if asJSON {
					return writeJSON(e.stdout, s)
				}
				fmt.Fprintf(e.stdout, "took over %s (%s) in %s: it is this daemon's now\n", s.Name, s.ID, s.Workspace)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the session as JSON")
	return cmd
}
