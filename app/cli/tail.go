package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"exo/harness/api"
)

func tailCmd(e *env) *cobra.Command {
	var asJSON bool
	var from uint64
	var last int
	cmd := &cobra.Command{
		Use:   "tail SESSION",
		Short: "Follow a session's events as lines while agents work (JSON lines with --json); Ctrl-C leaves",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withSession(args[0], func(_ context.Context, c api.Client, s *api.Session) error {
				ctx, stop := e.signalContext()
				defer stop()
				after, err := tailStart(ctx, c, s, from, last)
				if err != nil {
					return err
				}
				return e.tail(ctx, c, s, after, asJSON)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print each event as a JSON line")
	cmd.Flags().Uint64Var(&from, "from", 0, "start with this seq (default: the last --lines events)")
	cmd.Flags().IntVarP(&last, "lines", "n", 10, "how many past events to print first")
	return cmd
}

// tailStart chooses the seq after which the tail begins.
func tailStart(ctx context.Context, c api.Client, s *api.Session, from uint64, last int) (uint64, error) {
	if from > 0 {
		return from - 1, nil
	}
	st, err := c.State(ctx, s.Branch)
	if err != nil {
		return 0, err
	}
	if uint64(max(last, 0)) >= st.Head {
		return 0, nil
	}
	return st.Head - uint64(last), nil
}

// tail prints events as they are committed; it reconnects (resuming after the last seq) when
// the daemon restarts, and ends once the session is deleted (another client removed it).
func (e *env) tail(ctx context.Context, c api.Client, s *api.Session, after uint64, asJSON bool) error {
	branch := s.Branch
	tw := table(e.stdout)
	for ctx.Err() == nil {
		w, err := c.Watch(ctx, api.WatchRequest{Session: s.ID, After: after, Branch: branch, Attach: s.ID, Client: "tail"})
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		for n := range w.C {
			for _, ev := range n.Events {
				if err := printEvent(e, tw, s.Branch, ev, asJSON); err != nil {
					return err
				}
				after, branch = ev.Seq, ev.Branch
				if ev.Type == api.TypeSessionDeleted {
					tw.Flush()
					fmt.Fprintf(e.stderr, "exo: session %s was deleted; nothing more will come\n", s.Name)
					return nil
				}
			}
			tw.Flush()
		}
		if ctx.Err() != nil {
			return nil
		}
		fmt.Fprintf(e.stderr, "exo: the daemon went away (%v); reconnecting…\n", w.Err())
		time.Sleep(200 * time.Millisecond)
		if nc, err := e.connect(ctx); err == nil {
			c = nc
		}
	}
	return nil
}
