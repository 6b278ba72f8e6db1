package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"exo/harness/api"
	"exo/views/plaintext"
)

func verifyCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify [SESSION]",
		Short: "Recompute the hash chains; exit 1 naming the first bad event",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withClient(func(ctx context.Context, c api.Client) error {
				id := ""
				if len(args) == 1 {
					s, err := resolve(ctx, c, args[0])
					if err != nil {
						return err
					}
					id = s.ID
				}
				rep, err := c.Verify(ctx, id)
				if err != nil {
					return err
				}
				if asJSON {
					if err := writeJSON(e.stdout, rep); err != nil {
						return err
					}
				} else if rep.OK() {
					fmt.Fprintf(e.stdout, "ok: %s in %s verified\n", plaintext.Plural(rep.Events, "event"), plaintext.Plural(rep.Branches, "branch"))
				}
				if !rep.OK() {
					p := rep.Problems[0]
					return failf(ExitFailure, "verify failed: first bad event %s@%d: %s (%s in all)", p.Branch, p.Seq, p.Reason, plaintext.Plural(len(rep.Problems), "problem"))
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}
