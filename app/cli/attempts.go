package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/aymanbagabas/go-udiff"
	"github.com/spf13/cobra"

	"exo/harness/api"
)

// attemptsCmd is `exo attempts`: one prompt as several attempts side by side, each a sibling
// forked at the same event, then their scoreboard; show, keep and diff work on a set after.
func attemptsCmd(e *env) *cobra.Command {
	var executors, models []string
	var check, budgetTokens, budgetCost, setTokens, setCost string
	var timeout, setTimeout time.Duration
	var asJSON, detach, yes bool
	cmd := &cobra.Command{
		Use:   "attempts SESSION[@SEQ] [--executor E1,E2] [--model M1,M2] [--check CMD] PROMPT",
		Short: "Run one prompt as several attempts from one event (one per executor and model), then score them",
		Long: "Forks one sibling of SESSION at SEQ (default: its head) per executor and model pair, each with its\n" +
			"own working copy, and sends each the same PROMPT at once. One attempt failing or cancelled never\n" +
			"stops the others. When a turn ends, --check runs in that attempt's sandbox (its exit status and\n" +
			"output, kept as an artifact, go on the scoreboard). Everything is recorded as events, so\n" +
			"'exo attempts show SET' rebuilds the scoreboard after any restart; 'exo attempts keep ATTEMPT'\n" +
			"makes one attempt's history and files the session's.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, seq, err := splitRef(args[0], false)
			if err != nil {
				return err
			}
			prompt, err := promptArg(e, args[1])
			if err != nil {
				return err
			}
			b := api.AttemptBudget{Seconds: timeout.Seconds(), SetSeconds: setTimeout.Seconds()}
			for _, f := range []struct {
				kind, text string
				to         *float64
			}{{"tokens", budgetTokens, &b.Tokens}, {"cost", budgetCost, &b.Cost}, {"tokens", setTokens, &b.SetTokens}, {"cost", setCost, &b.SetCost}} {
				if *f.to, err = api.ParseBudget(f.kind, f.text); err != nil {
					return usageErr(err)
				}
			}
			req := api.AttemptsRequest{Seq: seq, Executors: splitList(executors), Models: splitList(models), Prompt: prompt, Check: check, Budget: b}
			req.AutoApprove = yes
			if n := len(req.Pairs()); n > api.MaxAttempts {
				return usagef("%d attempts: at most %d in one set", n, api.MaxAttempts)
			}
			return e.withSession(ref, func(ctx context.Context, c api.Client, s *api.Session) error {
				req.Session = s.ID
				w, err := c.Watch(ctx, api.WatchRequest{Client: "attempts"})
				if err != nil {
					return err
				}
				defer w.Close()
				set, err := c.StartAttempts(ctx, req)
				if err != nil {
					return seqErr(err)
				}
				fmt.Fprintf(e.stderr, "%s: %s from %s@%d\n", set.ID, attemptsCount(len(set.Rows)), set.OriginName, set.AtSeq)
				for _, r := range set.Rows {
					fmt.Fprintf(e.stderr, "  %s  %s  %s\n", r.Name, r.Runner(), r.Status)
				}
				return e.finishAttempts(ctx, c, w, set, detach, asJSON)
			})
		},
	}
	cmd.Flags().StringSliceVar(&executors, "executor", nil, "executors, comma-separated: default, claude-code, codex, acp:COMMAND (default: the session's)")
	cmd.Flags().StringSliceVar(&models, "model", nil, "registered models, comma-separated (default: the session's)")
	cmd.Flags().StringVar(&check, "check", "", "command run in each attempt's sandbox when its turn ends (e.g. 'go test ./...')")
	cmd.Flags().StringVar(&budgetTokens, "budget-tokens", "", "token budget of each attempt (200k, 1.5M)")
	cmd.Flags().StringVar(&budgetCost, "budget-cost", "", "cost budget of each attempt in dollars")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "time budget of each attempt (e.g. 10m)")
	cmd.Flags().StringVar(&setTokens, "set-budget-tokens", "", "token budget of the whole set: every attempt stops when reached")
	cmd.Flags().StringVar(&setCost, "set-budget-cost", "", "cost budget of the whole set in dollars")
	cmd.Flags().DurationVar(&setTimeout, "set-timeout", 0, "time budget of the whole set")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the scoreboard as JSON")
	cmd.Flags().BoolVar(&detach, "detach", false, "print the set's id and return while the attempts run")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "approve every tool call of the attempts")
	cmd.AddCommand(attemptsShowCmd(e), attemptsKeepCmd(e), attemptsDiffCmd(e))
	return cmd
}

// splitList trims a comma-separated flag's values and drops empty ones.
func splitList(in []string) []string {
	var out []string
	for _, v := range in {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// promptArg reads a prompt argument ("-" reads stdin).
func promptArg(e *env, arg string) (string, error) {
	if arg != "-" {
		return arg, nil
	}
	b, err := io.ReadAll(e.stdin)
	if err != nil {
		return "", fmt.Errorf("read the prompt: %w", err)
	}
	return string(b), nil
}

// waitAttempts follows a set until every attempt ended, saying each end on log.
func waitAttempts(ctx context.Context, c api.Client, w *api.Watcher, set api.AttemptSet, log io.Writer) (api.AttemptSet, error) {
	members := map[string]string{}
	for _, r := range set.Rows {
		members[r.Session] = r.Name
	}
	var err error
	for !set.Done() {
		n, ok := <-w.C
		if !ok {
			if err := w.Err(); err != nil {
				return set, fmt.Errorf("the daemon went away while the attempts ran (exo attempts show %s says how each ended): %w", set.ID, err)
			}
			return set, ctx.Err()
		}
		name, mine := members[n.Session]
		if !mine {
			continue
		}
		for _, ev := range n.Events {
			if ev.Type == api.TypeAttemptEnded || ev.Type == api.TypeAttemptChecked {
				fmt.Fprintf(log, "%s: %s\n", name, api.Summary(ev))
			}
		}
		if n.Turn != nil || slices.ContainsFunc(n.Events, func(ev api.Event) bool { return ev.Type == api.TypeAttemptEnded }) {
			if set, err = c.AttemptSet(ctx, set.ID); err != nil {
				return set, err
			}
		}
	}
	return set, nil
}

// finishAttempts ends `exo attempts` and `exo replay` alike: with detach it prints the set (its
// id, or the set as JSON) and returns while the attempts run; else it follows them to their
// end, prints the scoreboard and exits as attemptsExit says.
func (e *env) finishAttempts(ctx context.Context, c api.Client, w *api.Watcher, set api.AttemptSet, detach, asJSON bool) error {
	if detach {
		if asJSON {
			return writeJSON(e.stdout, set)
		}
		fmt.Fprintln(e.stdout, set.ID)
		return nil
	}
	set, err := waitAttempts(ctx, c, w, set, e.stderr)
	if err != nil {
		return err
	}
	if err := printAttempts(e.stdout, set, asJSON); err != nil {
		return err
	}
	return attemptsExit(set)
}

// attemptsExit is 0 when an attempt finished (its check passed, if any), else 1.
func attemptsExit(set api.AttemptSet) error {
	for _, r := range set.Rows {
		if r.Status == api.AttemptDone && (r.Check == nil || r.Check.Passed()) {
			return nil
		}
	}
	return failf(ExitFailure, "no attempt of %s succeeded", set.ID)
}

// printAttempts writes a set's scoreboard as a table, or as JSON.
func printAttempts(w io.Writer, set api.AttemptSet, asJSON bool) error {
	if asJSON {
		return writeJSON(w, set)
	}
	fmt.Fprintf(w, "%s: %q from %s@%d", set.ID, oneLineCap(set.Prompt, 60), set.OriginName, set.AtSeq)
	if set.Check != "" {
		fmt.Fprintf(w, ", check %q", set.Check)
	}
	fmt.Fprintln(w)
	tw := table(w)
	fmt.Fprintln(tw, "ATTEMPT\tRUNNER\tSTATUS\tCHECK\tFILES\tDRIFT\tSTEPS\tTOOLS\tTOKENS\tCOST\tTTFT\tWALL\tAPPROVALS")
	rows := set.Rows
	if set.Original != nil {
		rows = append([]api.AttemptRow{*set.Original}, rows...)
	}
	for _, r := range rows {
		name := r.Name
		if r.Kept {
			name += " (kept)"
		}
		runner := r.Runner()
		if r.Status == "original" {
			runner = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%.2f\t%d\t%d\t%d\t$%.4f\t%s\t%s\t%d\n", name, runner, r.Status, r.CheckText(),
			len(r.Files), r.Drift, r.Steps, r.ToolCalls, r.Tokens, r.Cost, msText(r.TTFTMs), msText(r.WallMs), r.Approvals)
	}
	return tw.Flush()
}

// msText writes milliseconds as a short duration.
func msText(ms int64) string {
	if ms <= 0 {
		return "-"
	}
	return (time.Duration(ms) * time.Millisecond).Round(10 * time.Millisecond).String()
}

// oneLineCap flattens text to one line of at most n runes.
func oneLineCap(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func attemptsShowCmd(e *env) *cobra.Command {
	var asJSON bool
	var sortBy string
	cmd := &cobra.Command{
		Use:   "show SET [--sort COL] [--json]",
		Short: "Show an attempt set's scoreboard (SET: its id, an attempt, or the session it started from)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withClient(func(ctx context.Context, c api.Client) error {
				set, err := c.AttemptSet(ctx, args[0])
				if err != nil {
					return usageErr(err)
				}
				if sortBy != "" {
					if err := api.SortAttempts(set.Rows, sortBy); err != nil {
						return usageErr(err)
					}
				}
				return printAttempts(e.stdout, set, asJSON)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the scoreboard as JSON")
	cmd.Flags().StringVar(&sortBy, "sort", "", "sort by a column: "+strings.Join(api.AttemptColumns, ", "))
	return cmd
}

func attemptsKeepCmd(e *env) *cobra.Command {
	var asJSON, archive bool
	cmd := &cobra.Command{
		Use:   "keep ATTEMPT [--archive]",
		Short: "Make an attempt's history and files its session's (a rewind onto it; nothing is deleted)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withClient(func(ctx context.Context, c api.Client) error {
				res, err := c.KeepAttempt(ctx, api.KeepRequest{Attempt: args[0], Archive: archive})
				if err != nil {
					return usageErr(err)
				}
				if asJSON {
					return writeJSON(e.stdout, res)
				}
				fmt.Fprintf(e.stdout, "%s now continues attempt %s (branch %s)\n", res.Session.Name, args[0], res.Session.Branch)
				if len(res.Archived) > 0 {
					fmt.Fprintf(e.stdout, "archived: %s\n", strings.Join(res.Archived, ", "))
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&archive, "archive", false, "archive the set's other attempts in the same step")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func attemptsDiffCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "diff ATTEMPT OTHER",
		Short: "Diff the files two attempts changed, as each attempt's newest snapshot holds them",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withClient(func(ctx context.Context, c api.Client) error {
				a, err := c.AttemptSet(ctx, args[0])
				if err != nil {
					return usageErr(err)
				}
				ra, rb, err := attemptPair(a, args[0], args[1])
				if err != nil {
					return usageErr(err)
				}
				paths := append(slices.Clone(ra.Files), rb.Files...)
				slices.Sort(paths)
				for _, p := range slices.Compact(paths) {
					x, err := c.FileAtSnapshot(ctx, ra.Session, p)
					if err != nil {
						return err
					}
					y, err := c.FileAtSnapshot(ctx, rb.Session, p)
					if err != nil {
						return err
					}
					fmt.Fprint(e.stdout, udiff.Unified(ra.Name+"/"+p, rb.Name+"/"+p, x, y))
				}
				return nil
			})
		},
	}
}

// attemptPair finds two attempts of a set by name or session id.
func attemptPair(set api.AttemptSet, a, b string) (api.AttemptRow, api.AttemptRow, error) {
	find := func(ref string) (api.AttemptRow, error) {
		for _, r := range set.Rows {
			if r.Name == ref || r.Session == ref || strings.HasPrefix(r.Session, ref) && len(ref) >= 6 {
				return r, nil
			}
		}
		return api.AttemptRow{}, fmt.Errorf("%s is no attempt of set %s", ref, set.ID)
	}
	ra, err := find(a)
	if err != nil {
		return ra, ra, err
	}
	rb, err := find(b)
	return ra, rb, err
}

// replayCmd is `exo replay`: a session's recorded prompts re-run in a fork under another
// executor or model, scored against the original run.
func replayCmd(e *env) *cobra.Command {
	var from uint64
	var executor, model, check string
	var asJSON, yes, detach bool
	cmd := &cobra.Command{
		Use:   "replay SESSION [--from SEQ] [--executor X] [--model M] [--check CMD]",
		Short: "Re-run a session's recorded prompts under another executor or model, scored against the original",
		Long: "Forks SESSION at its start (or at SEQ) and sends the user prompts it recorded after that point,\n" +
			"turn by turn, under --executor and --model. Approvals the original answered for the same tool call\n" +
			"(same tool, same arguments) are answered the same way; others are asked (or approved with --yes).\n" +
			"The scoreboard has the original run as its first row; several replays of one session are sets of\n" +
			"their own, compared with exo attempts show.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withSession(args[0], func(ctx context.Context, c api.Client, s *api.Session) error {
				w, err := c.Watch(ctx, api.WatchRequest{Client: "replay"})
				if err != nil {
					return err
				}
				defer w.Close()
				set, err := c.Replay(ctx, api.ReplayRequest{Session: s.ID, From: from, Executor: executor, Model: model, Check: check, AutoApprove: yes})
				if err != nil {
					return usageErr(err)
				}
				fmt.Fprintf(e.stderr, "%s: replaying %s from @%d as %s\n", set.ID, s.Name, set.AtSeq, set.Rows[0].Name)
				return e.finishAttempts(ctx, c, w, set, detach, asJSON)
			})
		},
	}
	cmd.Flags().Uint64Var(&from, "from", 0, "replay the prompts after this event (default: all of them)")
	cmd.Flags().StringVar(&executor, "executor", "", "executor of the replay (default: the session's)")
	cmd.Flags().StringVar(&model, "model", "", "model of the replay (default: the session's)")
	cmd.Flags().StringVar(&check, "check", "", "command run in the replay's sandbox at its end")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "approve the tool calls the original did not answer")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the scoreboard as JSON")
	cmd.Flags().BoolVar(&detach, "detach", false, "print the set's id and return while the replay runs")
	return cmd
}

// attemptsCount says "1 attempt" or "N attempts".
func attemptsCount(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts", n)
}
