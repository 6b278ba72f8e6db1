package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"exo/harness"
)

func execCmd(e *env) *cobra.Command {
	var timeout int
	var background bool
	cmd := &cobra.Command{
		Use:   "exec SESSION -- COMMAND...",
		Short: "Run a command in the session's sandbox as the user (recorded so the agent sees it); exit status passed through",
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 1 {
				return usagef("put the command after --, e.g. exo exec %s -- ls -la", args[0])
			}
			command := strings.Join(args[1:], " ")
			return e.withSession(args[0], func(h *harness.Harness, s *harness.Session) error {
				if background {
					return e.startBackground(h, s, command)
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
	cmd.Flags().BoolVar(&background, "background", false, "run in the background and print a task handle (see exo task)")
	return cmd
}

// startBackground starts a detached task and prints its handle.
func (e *env) startBackground(h *harness.Harness, s *harness.Session, command string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	t, err := h.StartDetached(s.ID, command, exe)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, t.ID)
	fmt.Fprintf(e.stderr, "started in the background for %s: exo task out %s | exo task kill %s\n", s.Name, t.ID, t.ID)
	return nil
}

func taskCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "task", Short: "Background tasks started with exo exec --background"}
	var asJSON bool
	ls := &cobra.Command{
		Use: "ls", Short: "List background tasks (finished ones are recorded in their session's log)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withHarness(func(h *harness.Harness) error {
				ts, err := h.DetachedTasks()
				if err != nil || asJSON {
					if err == nil {
						err = writeJSON(e.stdout, ts)
					}
					return err
				}
				tw := table(e.stdout)
				fmt.Fprintln(tw, "TASK\tSTATE\tEXIT\tSTARTED\tCOMMAND")
				for _, t := range ts {
					fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", t.ID, t.State(), t.ExitCode, ago(t.Started), t.Command)
				}
				return tw.Flush()
			})
		},
	}
	ls.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	out := &cobra.Command{
		Use: "out TASK", Short: "Print a background task's output so far", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withHarness(func(h *harness.Harness) error { return usageErr(h.DetachedOutput(args[0], e.stdout)) })
		},
	}
	kill := &cobra.Command{
		Use: "kill TASK", Short: "Kill a background task", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withHarness(func(h *harness.Harness) error { return usageErr(h.KillDetached(args[0])) })
		},
	}
	run := &cobra.Command{
		Use: "__task-run DIR", Hidden: true, Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return harness.RunDetached(args[0]) },
	}
	cmd.AddCommand(ls, out, kill)
	e.hidden = append(e.hidden, run)
	return cmd
}
