package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"exo/harness/api"
)

// compactCmd is `exo compact SESSION`: prune old tool outputs and summarise the history before
// the last two user turns, recorded as compaction.applied events (the log keeps everything).
func compactCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "compact SESSION",
		Short: "Compact a session's prompt view by hand: prune old tool outputs and summarise older turns",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withSession(args[0], func(_ context.Context, c api.Client, s *api.Session) error {
				ctx, stop := e.signalContext()
				defer stop()
				rep, err := c.Compact(ctx, s.ID)
				if errors.Is(err, api.ErrNothingToCompact) {
					fmt.Fprintf(e.stderr, "%s: %v\n", s.Name, err)
					return nil
				}
				if err != nil {
					return fmt.Errorf("compact %s: %w", s.Name, err)
				}
				if asJSON {
					return writeJSON(e.stdout, rep)
				}
				fmt.Fprintf(e.stdout, "%s %s\n", s.Name, rep)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}
