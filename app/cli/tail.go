package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"exo/harness/api"
)

func tailCmd(e *env) *cobra.Command {
	var f tailFlags
	cmd := &cobra.Command{
		Use:   "tail SESSION",
		Short: "Follow a session's events and streaming answers while agents work (JSON lines with --json); Ctrl-C leaves",
		Long: "Prints the session's last events, then each event as it is committed and, between them, the\n" +
			"answer's text and reasoning as the model streams them. --until-idle returns once no turn runs on\n" +
			"the session (at once when none runs), so scripts can wait for a turn: exo run --detach, then\n" +
			"exo tail --until-idle. --json prints committed events only, one JSON object a line.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withSession(args[0], func(_ context.Context, c api.Client, s *api.Session) error {
				ctx, stop := e.signalContext()
				defer stop()
				st, after, err := tailStart(ctx, c, s, f.from, f.last)
				if err != nil {
					return err
				}
				return e.tail(ctx, c, s, tailFrom{after: after, head: st.Head}, f)
			})
		},
	}
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print each committed event as a JSON line")
	cmd.Flags().Uint64Var(&f.from, "from", 0, "start with this seq (default: the last --lines events)")
	cmd.Flags().IntVarP(&f.last, "lines", "n", 10, "how many past events to print first")
	cmd.Flags().BoolVar(&f.untilIdle, "until-idle", false, "return once no turn runs on the session")
	return cmd
}

// tailFlags are exo tail's flags.
type tailFlags struct {
	asJSON, untilIdle bool
	from              uint64
	last              int
}

// tailFrom is where a tail starts: after this seq, the session's head being head.
type tailFrom struct{ after, head uint64 }

// tailStart reads the session's projection and chooses the seq after which the tail begins.
func tailStart(ctx context.Context, c api.Client, s *api.Session, from uint64, last int) (*api.SessionState, uint64, error) {
	st, err := c.State(ctx, s.Branch)
	if err != nil {
		return nil, 0, err
	}
	if from > 0 {
		return st, from - 1, nil
	}
	if uint64(max(last, 0)) >= st.Head {
		return st, 0, nil
	}
	return st, st.Head - uint64(last), nil
}

// tail prints events as they are committed and the answer as it streams; it reconnects
// (resuming after the last seq) when the daemon restarts, and ends once the session is deleted
// (another client removed it) or, with --until-idle, once no turn runs on it.
func (e *env) tail(ctx context.Context, c api.Client, s *api.Session, start tailFrom, f tailFlags) error {
	after, branch := start.after, s.Branch
	tw := table(e.stdout)
	live := &liveText{w: e.stdout}
	for ctx.Err() == nil {
		w, err := c.Watch(ctx, api.WatchRequest{Session: s.ID, After: after, Branch: branch, Attach: s.ID, Client: "tail"})
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		// Asked once the watch runs, so that a turn ending now still reaches it as a notice.
		idle := false
		if f.untilIdle {
			act, err := c.Activity(ctx)
			if err != nil {
				w.Close()
				return err
			}
			_, running := act.Running[s.ID]
			idle = !running
		}
		if idle && after >= start.head {
			w.Close()
			return nil
		}
		for n := range w.C {
			done, err := e.tailNotice(tw, live, s, n, &after, &branch, f.asJSON)
			if err != nil || done {
				w.Close()
				return err
			}
			if f.untilIdle && (idle && after >= start.head || n.Turn != nil && !n.Turn.Running) {
				live.end()
				w.Close()
				return nil
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		live.end()
		fmt.Fprintf(e.stderr, "exo: the daemon went away (%v); reconnecting…\n", w.Err())
		time.Sleep(200 * time.Millisecond)
		if nc, err := e.connect(ctx); err == nil {
			c = nc
		}
	}
	return nil
}

// tailNotice prints one notice of the tailed session: its streamed text between event lines,
// its events as rows. It reports true once the session was deleted.
func (e *env) tailNotice(tw flusher, live *liveText, s *api.Session, n api.Notice, after *uint64, branch *string, asJSON bool) (bool, error) {
	if !asJSON && (n.Reasoning != "" || n.Delta != "") {
		if err := tw.Flush(); err != nil {
			return false, err
		}
		live.reasoning(n.Reasoning)
		live.text(n.Delta)
	}
	for _, ev := range n.Events {
		live.end()
		if err := printEvent(e, tw, s.Branch, ev, asJSON); err != nil {
			return false, err
		}
		if !asJSON && ev.Type == api.TypeApprovalRequested {
			fmt.Fprintf(tw, "\t\t\t\t  answer: exo approve %s --allow|--deny (exo approve %s lists what waits)\n", s.Name, s.Name)
		}
		*after, *branch = ev.Seq, ev.Branch
		if ev.Type == api.TypeSessionDeleted {
			tw.Flush()
			fmt.Fprintf(e.stderr, "exo: session %s was deleted; nothing more will come\n", s.Name)
			return true, nil
		}
	}
	return false, tw.Flush()
}
