package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"exo/harness"
	"exo/store"
)

func logCmd(e *env) *cobra.Command {
	var from, to uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "log SESSION",
		Short: "Print a session's events (its current branch's whole history)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withSession(args[0], func(h *harness.Harness, s *harness.Session) error {
				head, _, err := h.Store().Head(s.Branch)
				if err != nil {
					return err
				}
				if from > head || (to != 0 && (to > head || to < from)) {
					return usagef("range %d..%d is outside %s's history 1..%d", from, to, s.Name, head)
				}
				return printLog(e, h, s, from, to, asJSON)
			})
		},
	}
	cmd.Flags().Uint64Var(&from, "from", 1, "first seq")
	cmd.Flags().Uint64Var(&to, "to", 0, "last seq (default: the head)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON lines, one event each")
	return cmd
}

// printLog streams the events of a range, one per line.
func printLog(e *env, h *harness.Harness, s *harness.Session, from, to uint64, asJSON bool) error {
	return h.Store().View(func(tx *store.Tx) error {
		tw := table(e.stdout)
		for ev, err := range tx.Events(s.Branch, from, to) {
			if err != nil {
				return err
			}
			if asJSON {
				if err := writeJSONLine(e.stdout, ev); err != nil {
					return err
				}
				continue
			}
			mark := ""
			if ev.Branch != s.Branch {
				mark = "↑"
			}
			fmt.Fprintf(tw, "%d%s\t%s\t%s\t%s\t%s\n", ev.Seq, mark, ev.Time.Local().Format("15:04:05.000"),
				ev.Actor, ev.Type, strings.ReplaceAll(harness.Summary(ev), "\t", " "))
		}
		return tw.Flush()
	})
}
