package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"exo/harness/api"
)

func artifactCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "artifact", Short: "Read stored artifacts (large tool outputs, files)"}
	get := &cobra.Command{
		Use:   "get ID",
		Short: "Write an artifact's content to stdout (ID or a unique prefix)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withClient(func(ctx context.Context, c api.Client) error {
				r, err := c.Artifact(ctx, args[0])
				if errors.Is(err, api.ErrNotFound) { // its message said "not found" twice
					return usagef("no artifact matches %q (exo log shows the ids of a session's artifacts)", args[0])
				}
				if err != nil {
					return err
				}
				defer r.Close()
				if _, err := io.Copy(e.rawStdout, r); err != nil {
					return fmt.Errorf("write artifact: %w", err)
				}
				return nil
			})
		},
	}
	cmd.AddCommand(get)
	return cmd
}
