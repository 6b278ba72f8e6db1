package cli

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"exo/harness/api"
)

func logCmd(e *env) *cobra.Command {
	var from, to uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "log SESSION",
		Short: "Print a session's events (its current branch's whole history)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withSession(args[0], func(ctx context.Context, c api.Client, s *api.Session) error {
				st, err := c.State(ctx, s.Branch)
				if err != nil {
					return err
				}
				head := st.Head
				if from > head || (to != 0 && (to > head || to < from)) {
					return usagef("range %d..%d is outside %s's history 1..%d", from, to, s.Name, head)
				}
				if to == 0 {
					to = head
				}
				return printLog(ctx, e, c, s, max(from, 1), to, asJSON)
			})
		},
	}
	cmd.Flags().Uint64Var(&from, "from", 1, "first seq")
	cmd.Flags().Uint64Var(&to, "to", 0, "last seq (default: the head)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON lines, one event each")
	return cmd
}

// printLog prints the events of a range, one per line, reading them a page at a time.
func printLog(ctx context.Context, e *env, c api.Client, s *api.Session, from, to uint64, asJSON bool) error {
	tw := table(e.stdout)
	raw := e.rawStdout
	if raw == nil {
		raw = e.stdout
	}
	js := &eventJSON{raw: bufio.NewWriterSize(raw, 64<<10), safe: e.stdout}
	return api.EventPagesOf(ctx, c, s.Branch, from, to, func(evs []api.Event) error {
		for _, ev := range evs {
			var err error
			if asJSON {
				err = js.write(ev)
			} else {
				err = printEvent(e, tw, s.Branch, ev, false)
			}
			if err != nil {
				return err
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		return js.raw.Flush()
	})
}

// printEvent prints one event: a JSON line, or a table row (↑ marks an ancestor's event).
func printEvent(e *env, tw interface{ Write([]byte) (int, error) }, branch string, ev api.Event, asJSON bool) error {
	if asJSON {
		j := eventJSON{raw: bufio.NewWriterSize(e.stdout, 4<<10), safe: e.stdout}
		if err := j.write(ev); err != nil {
			return err
		}
		return j.raw.Flush()
	}
	mark := ""
	if ev.Branch != branch {
		mark = "↑"
	}
	_, err := fmt.Fprintf(tw, "%d%s\t%s\t%s\t%s\t%s\n", ev.Seq, mark, ev.Time.Local().Format("15:04:05.000"),
		ev.Actor, ev.Type, strings.ReplaceAll(api.Summary(ev), "\t", " "))
	return err
}
