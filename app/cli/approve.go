package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"exo/harness/api"
)

// approveCmd is `exo approve`: list or answer the approvals a session's turn waits on, from any
// terminal (the app that asked may be closed; the first answer of any client wins).
func approveCmd(e *env) *cobra.Command {
	var allow, always, deny, asJSON bool
	cmd := &cobra.Command{
		Use:   "approve SESSION [CALL] [--allow|--always|--deny]",
		Short: "Answer a tool call waiting for approval (without an answer: list what waits)",
		Long: "A turn under the ask mode waits for each tool call it asks about until a client answers: the app's\n" +
			"dialog, this command, or an MCP client. Without --allow, --always or --deny this lists the calls\n" +
			"that wait (oldest first). With one, it answers CALL, or the only call that waits when CALL is left\n" +
			"out. --always allows this tool for the rest of the session.",
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			decision, err := approvalDecision(allow, always, deny)
			if err != nil {
				return usageErr(err)
			}
			return e.withSession(args[0], func(ctx context.Context, c api.Client, s *api.Session) error {
				st, err := c.State(ctx, s.Branch)
				if err != nil {
					return err
				}
				if decision == "" {
					return e.printWaiting(s, st, asJSON)
				}
				call := ""
				if len(args) == 2 {
					call = args[1]
				}
				r, err := waitingCall(s, st, call)
				if err != nil {
					return err
				}
				if err := c.Approve(ctx, s.ID, r.CallID, decision); err != nil {
					if errors.Is(err, api.ErrResolved) {
						return failf(ExitFailure, "%s was already answered (by another client)", r.CallID)
					}
					return err
				}
				fmt.Fprintf(e.stdout, "%s %s: %s %s\n", decisionVerb(decision), r.CallID, r.Tool, oneLine(r.Summary, 100))
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&allow, "allow", false, "allow this call once")
	cmd.Flags().BoolVar(&always, "always", false, "allow this call and the tool's later calls in the session")
	cmd.Flags().BoolVar(&deny, "deny", false, "refuse this call (the model is told)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "list the waiting calls as JSON")
	cmd.MarkFlagsMutuallyExclusive("allow", "always", "deny")
	return cmd
}

// approvalDecision turns the flags into the API's decision ("" lists instead of answering).
func approvalDecision(allow, always, deny bool) (string, error) {
	switch {
	case allow:
		return "once", nil
	case always:
		return "always", nil
	case deny:
		return "deny", nil
	}
	return "", nil
}

// decisionVerb says what an answer did.
func decisionVerb(decision string) string {
	switch decision {
	case "always":
		return "allowed (always)"
	case "deny":
		return "denied"
	}
	return "allowed once"
}

// printWaiting lists the calls a session waits on.
func (e *env) printWaiting(s *api.Session, st *api.SessionState, asJSON bool) error {
	if asJSON {
		return writeJSON(e.stdout, waitingOrEmpty(st.Asked))
	}
	if len(st.Asked) == 0 {
		fmt.Fprintf(e.stdout, "no approval waits in %s\n", s.Name)
		return nil
	}
	tw := table(e.stdout)
	fmt.Fprintln(tw, "CALL\tTOOL\tWHAT")
	for _, r := range st.Asked {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.CallID, r.Tool, oneLine(r.Summary, 100))
	}
	tw.Flush()
	fmt.Fprintf(e.stdout, "answer with: exo approve %s CALL --allow|--always|--deny\n", s.Name)
	return nil
}

// waitingOrEmpty keeps --json an array when nothing waits.
func waitingOrEmpty(rs []api.ApprovalRequested) []api.ApprovalRequested {
	if rs == nil {
		return []api.ApprovalRequested{}
	}
	return rs
}

// waitingCall finds the call to answer: the one named, else the only one that waits.
func waitingCall(s *api.Session, st *api.SessionState, call string) (api.ApprovalRequested, error) {
	if len(st.Asked) == 0 {
		return api.ApprovalRequested{}, failf(ExitFailure, "no approval waits in %s", s.Name)
	}
	if call == "" {
		if len(st.Asked) > 1 {
			ids := make([]string, len(st.Asked))
			for i, r := range st.Asked {
				ids[i] = r.CallID
			}
			return api.ApprovalRequested{}, usageErr(fmt.Errorf("%d approvals wait in %s: name the call (%s)", len(st.Asked), s.Name, strings.Join(ids, ", ")))
		}
		return st.Asked[0], nil
	}
	for _, r := range st.Asked {
		if r.CallID == call {
			return r, nil
		}
	}
	return api.ApprovalRequested{}, failf(ExitFailure, "no approval for call %s waits in %s (exo approve %s lists them)", call, s.Name, s.Name)
}
