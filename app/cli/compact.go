package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/governance"
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
			return e.withHarness(func(h *harness.Harness) error { return e.compact(h, args[0], asJSON) })
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// compact runs one manual compaction and reports it.
func (e *env) compact(h *harness.Harness, ref string, asJSON bool) error {
	s, err := resolve(h, ref)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := executor.Options{Headless: true}
	if err := governance.Install(h, &opts, s.Workspace, true); err != nil {
		return fmt.Errorf("compact %s: %w", s.Name, err)
	}
	rep, err := executor.New(h, opts).Compact(ctx, s.ID)
	if errors.Is(err, executor.ErrNothingToCompact) {
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
}
