package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"exo/harness/api"
)

func execCmd(e *env) *cobra.Command {
	var timeout int
	var background bool
	cmd := &cobra.Command{
		Use:   "exec SESSION -- COMMAND [ARG…]",
		Short: "Run a command in the session's sandbox as the user (recorded so the agent sees it); exit status passed through",
		Long: "Several words after -- are a command and its arguments, passed as they are (each is quoted for the\n" +
			"sandbox's shell); one word is a shell line (exo exec S -- 'make test | tail').",
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 1 {
				return usagef("put the command after --, e.g. exo exec %s -- ls -la", args[0])
			}
			command := shellLine(args[1:])
			return e.withSession(args[0], func(_ context.Context, c api.Client, s *api.Session) error {
				if background {
					return e.startBackground(c, s, command)
				}
				ctx, stop := e.signalContext()
				defer stop()
				stopProgress := e.watchProgress(c, s)
				res, err := c.Exec(ctx, api.ExecRequest{Session: s.ID, Command: command, Timeout: secs(timeout)}, e.stdout)
				stopProgress()
				if err != nil && ctx.Err() != nil {
					return failf(ExitInterrupted, "interrupted")
				}
				if err != nil {
					return err
				}
				if res.Killed {
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

// shellLine turns the words after -- into the line the sandbox's shell runs: one word is a
// shell line as written; several are an argv, each quoted so the shell passes it unchanged.
func shellLine(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}

// shellQuote quotes a word for a POSIX shell (single quotes; a quote inside becomes '\”).
func shellQuote(w string) string {
	if w != "" && strings.IndexFunc(w, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// startBackground starts a detached task and prints its handle.
func (e *env) startBackground(c api.Client, s *api.Session, command string) error {
	t, err := c.StartTask(context.Background(), s.ID, command)
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
			return e.withClient(func(ctx context.Context, c api.Client) error {
				ts, err := c.Tasks(ctx)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(e.stdout, tasksJSON(ts))
				}
				tw := table(e.stdout)
				fmt.Fprintln(tw, "TASK\tSTATE\tEXIT\tSTARTED\tCOMMAND")
				for _, t := range ts {
					exit := "-"
					if t.Done {
						exit = fmt.Sprint(t.ExitCode)
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.ID, t.State(), exit, ago(t.Started), t.Command)
				}
				return tw.Flush()
			})
		},
	}
	ls.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	out := &cobra.Command{
		Use: "out TASK", Short: "Print a background task's output so far", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withClient(func(ctx context.Context, c api.Client) error { return taskErr(c.TaskOutput(ctx, args[0], e.stdout)) })
		},
	}
	kill := &cobra.Command{
		Use: "kill TASK", Short: "Kill a background task", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withClient(func(ctx context.Context, c api.Client) error { return taskErr(c.KillTask(ctx, args[0])) })
		},
	}
	run := &cobra.Command{
		Use: "__task-run DIR", Hidden: true, Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if e.opts.Local.RunDetached == nil {
				return errNoLocal
			}
			return e.opts.Local.RunDetached(args[0])
		},
	}
	cmd.AddCommand(ls, out, kill)
	e.hidden = append(e.hidden, run)
	return cmd
}

// taskErr makes an unknown task or a refused kill a usage error.
func taskErr(err error) error {
	var re *api.RemoteError
	if err != nil && (errors.Is(err, api.ErrNotFound) || errors.As(err, &re)) {
		return usageErr(err)
	}
	return err
}
