package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"exo/harness/api"
	"exo/views/plaintext"
)

// sessionCmd is `exo session`: archive and remove sessions.
func sessionCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "session",
		Short: "Archive or remove sessions (exo sessions lists them)",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(sessionRmCmd(e), sessionArchiveCmd(e))
	return cmd
}

// sessionRmCmd is `exo session rm`.
func sessionRmCmd(e *env) *cobra.Command {
	var yes, asJSON bool
	cmd := &cobra.Command{
		Use:   "rm SESSION",
		Short: "Remove a session: its fork's working copy (out of git worktree list), snapshots and sandbox go; its events stay in the log",
		Long: "The session is marked deleted in the log and no command finds it any more; its events stay in the\n" +
			"append-only store (exo verify checks them) and its artifacts stay until exo gc. exo removes the folders it\n" +
			"made for it under EXO_HOME when no other session uses them: a fork's working copy (and its record in the\n" +
			"repository's git worktree list), its snapshots repository, its sandbox's temporary folder and its external\n" +
			"executors' state. Your own workspace is never touched. A session with a running turn or task is refused.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withSession(args[0], func(ctx context.Context, c api.Client, s *api.Session) error {
				if !yes && !ask(e.stdin, e.stderr, rmQuestion(s)) {
					return failf(ExitFailure, "not removed (pass --yes to remove without asking)")
				}
				res, err := c.RemoveSession(ctx, s.ID)
				if errors.Is(err, api.ErrBusy) {
					return usageErr(err)
				}
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(e.stdout, res)
				}
				fmt.Fprintf(e.stdout, "removed %s (%s); its events stay in the log\n", s.Name, s.ID)
				for _, p := range res.Removed {
					fmt.Fprintf(e.stdout, "  removed %s\n", p)
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "remove without asking")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was removed as JSON")
	return cmd
}

// rmQuestion asks before removing s.
func rmQuestion(s *api.Session) string {
	what := "its sandbox and snapshots"
	if s.Settings["workspace_kind"] != "" {
		what = "its working copy " + s.Workspace + ", " + what
	}
	return fmt.Sprintf("Remove session %s (%s)? %s go; its events stay in the log. [y/N] ", s.Name, s.ID, what)
}

// sessionArchiveCmd is `exo session archive`.
func sessionArchiveCmd(e *env) *cobra.Command {
	var undo bool
	cmd := &cobra.Command{
		Use:   "archive SESSION",
		Short: "Hide a session from exo sessions and the siblings pane (--all shows it; --undo brings it back); nothing is removed",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withSession(args[0], func(ctx context.Context, c api.Client, s *api.Session) error {
				a, err := c.ArchiveSession(ctx, s.ID, !undo)
				if err != nil {
					return err
				}
				state := "archived"
				if !a.Archived {
					state = "back from the archive"
				}
				fmt.Fprintf(e.stdout, "%s %s\n", a.Name, state)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&undo, "undo", false, "bring an archived session back")
	return cmd
}

// gcCmd is `exo gc`.
func gcCmd(e *env) *cobra.Command {
	var yes, dryRun, asJSON bool
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "Remove the working copies, snapshots repositories and sandbox folders no live session uses (asks first; --yes does not)",
		Long: "Lists what would be freed, asks, then removes it (like docker system prune): fork working copies (and\n" +
			"their records in git worktree list), snapshots repositories and sandbox or executor state of deleted\n" +
			"sessions, of removals a crash cut short and of forks never recorded. --dry-run only lists; --yes removes\n" +
			"without asking. Artifacts are kept (the log's events name them).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withClient(func(ctx context.Context, c api.Client) error { return e.gc(ctx, c, dryRun, yes, asJSON) })
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "remove without asking")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "only list what would be removed")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// gc lists what a collection would free and removes it when the user agrees.
func (e *env) gc(ctx context.Context, c api.Client, dryRun, yes, asJSON bool) error {
	if yes && !dryRun {
		rep, err := c.GC(ctx, false)
		if err != nil {
			return err
		}
		return e.printGC(rep, asJSON)
	}
	plan, err := c.GC(ctx, true)
	if err != nil {
		return err
	}
	if dryRun || len(plan.Items) == 0 && plan.Checkpoints == 0 {
		return e.printGC(plan, asJSON)
	}
	e.printGC(plan, false)
	if !ask(e.stdin, e.stderr, fmt.Sprintf("Remove these %s (%s) and %s? [y/N] ", plaintext.Plural(len(plan.Items), "folder"), humanBytes(plan.Bytes), plaintext.Plural(plan.Checkpoints, "old checkpoint"))) {
		return failf(ExitFailure, "nothing removed (pass --yes to remove without asking)")
	}
	rep, err := c.GC(ctx, false)
	if err != nil {
		return err
	}
	return e.printGC(rep, asJSON)
}

// printGC prints a collection's report.
func (e *env) printGC(rep api.GCReport, asJSON bool) error {
	if asJSON {
		return writeJSON(e.stdout, rep)
	}
	verb := "would free"
	if rep.Removed {
		verb = "freed"
	}
	tw := table(e.stdout)
	for _, it := range rep.Items {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", it.Kind, humanBytes(it.Bytes), it.Path)
	}
	tw.Flush()
	fmt.Fprintf(e.stdout, "%s %s in %s\n", verb, humanBytes(rep.Bytes), plaintext.Plural(len(rep.Items), "folder"))
	if rep.Checkpoints > 0 {
		pruned := "would prune"
		if rep.Removed {
			pruned = "pruned"
		}
		fmt.Fprintf(e.stdout, "%s %s (sessions open from a newer one; scrubbing back replays a little more)\n", pruned, plaintext.Plural(rep.Checkpoints, "old checkpoint"))
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(e.stderr, "exo: %s\n", p)
	}
	if len(rep.Problems) > 0 {
		return failf(ExitFailure, "some folders could not be removed")
	}
	return nil
}
