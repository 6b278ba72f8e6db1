package cli

import (
	"context"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"exo/harness"
)

func execCmd(e *env) *cobra.Command {
	var timeout int
	cmd := &cobra.Command{
		Use:   "exec SESSION -- COMMAND...",
		Short: "Run a command in the session's sandbox as the user (recorded so the agent sees it); exit status passed through",
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 1 {
				return usagef("put the command after --, e.g. exo exec %s -- ls -la", args[0])
			}
			command := strings.Join(args[1:], " ")
			return e.withHarness(func(h *harness.Harness) error {
				s, err := resolve(h, args[0])
				if err != nil {
					return err
				}
				ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				res, err := h.UserExec(ctx, s.ID, command, harness.ExecOptions{Stream: e.stdout, Timeout: secs(timeout)})
				if err != nil {
					return err
				}
				if res.Killed {
					if ctx.Err() != nil {
						return failf(ExitInterrupted, "interrupted")
					}
					return failf(ExitFailure, "%s", res.KillReason)
				}
				if res.ExitCode != 0 {
					return &exitError{code: res.ExitCode, err: errSilent}
				}
				return nil
			})
		},
	}
	cmd.Flags().IntVar(&timeout, "timeout", 0, "seconds before the command is killed (default 120)")
	return cmd
}
