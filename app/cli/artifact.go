package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"exo/harness"
	"exo/store"
)

func artifactCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "artifact", Short: "Read stored artifacts (large tool outputs, files)"}
	get := &cobra.Command{
		Use:   "get ID",
		Short: "Write an artifact's content to stdout (ID or a unique prefix)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withHarness(func(h *harness.Harness) error {
				r, _, err := h.Store().OpenArtifact(args[0])
				if errors.Is(err, store.ErrNotFound) {
					return usageErr(err)
				}
				if err != nil {
					return err
				}
				defer r.Close()
				if _, err := io.Copy(e.stdout, r); err != nil {
					return fmt.Errorf("write artifact: %w", err)
				}
				return nil
			})
		},
	}
	cmd.AddCommand(get)
	return cmd
}
