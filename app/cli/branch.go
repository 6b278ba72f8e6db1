package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"exo/harness/api"
)

func forkCmd(e *env) *cobra.Command {
	var name string
	var asJSON bool
	var sf scopeFlags
	cmd := &cobra.Command{
		Use:   "fork SESSION[@SEQ]",
		Short: "Start a sibling session from SESSION's history up to SEQ (default: its head)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, seq, err := splitRef(args[0], false)
			if err != nil {
				return err
			}
			return e.withSession(ref, func(ctx context.Context, c api.Client, src *api.Session) error {
				n, err := c.Fork(ctx, api.ForkRequest{Session: src.ID, Seq: seq, Name: name, Scope: sf.forkScope(cmd)})
				if err != nil {
					return seqErr(err)
				}
				if asJSON {
					return writeJSON(e.stdout, n)
				}
				fmt.Fprintln(e.stdout, n.ID)
				fmt.Fprintf(e.stderr, "forked %s@%d as %s\n", src.Name, n.ParentSeq, n.Name)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "name of the new session")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the new session as JSON")
	addScopeFlags(cmd, &sf)
	return cmd
}

func rewindCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "rewind SESSION@SEQ",
		Short: "Continue SESSION from event SEQ on a new branch; the abandoned branch is kept",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, seq, err := splitRef(args[0], true)
			if err != nil {
				return err
			}
			return e.withSession(ref, func(ctx context.Context, c api.Client, s *api.Session) error {
				old := s.Branch
				s, err := c.Rewind(ctx, s.ID, seq)
				if err != nil {
					return seqErr(err)
				}
				if asJSON {
					return writeJSON(e.stdout, s)
				}
				fmt.Fprintf(e.stdout, "%s now continues from @%d on branch %s (abandoned branch %s is kept)\n", s.Name, seq, s.Branch, old)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the session as JSON")
	return cmd
}

// seqErr turns a bad seq or a refused request into a usage error.
func seqErr(err error) error {
	if errors.Is(err, api.ErrBadSeq) || errors.Is(err, api.ErrInvalid) {
		return usageErr(err)
	}
	return err
}
