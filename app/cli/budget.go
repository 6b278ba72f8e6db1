package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"exo/harness/api"
)

// budgetCmd is `exo budget`: show a session's token and cost budgets against what it spent, or
// change them; each change is recorded in the log (budget.changed), and a session stopped by a
// spent budget takes prompts again once it is raised.
func budgetCmd(e *env) *cobra.Command {
	var tokens, cost string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "budget SESSION [--tokens N|none] [--cost USD|none]",
		Short: "Show or change a session's token and cost budgets (a spent budget stops its turns)",
		Long: "Without flags: the session's budgets and what it spent against them. --tokens takes a number of\n" +
			"tokens (200000, 200k, 1.5M), --cost an amount of dollars (5, 2.50); none removes a budget. Each\n" +
			"change is an event of the session's log (budget.changed); raising a spent budget lets the session\n" +
			"take prompts again. In the app: /budget tokens N, /budget cost N.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			changes := map[string]string{}
			if cmd.Flags().Changed("tokens") {
				changes["tokens"] = tokens
			}
			if cmd.Flags().Changed("cost") {
				changes["cost"] = cost
			}
			for kind, v := range changes {
				if _, err := api.ParseBudget(kind, v); err != nil {
					return usageErr(err)
				}
			}
			return e.withSession(args[0], func(ctx context.Context, c api.Client, s *api.Session) error {
				for _, kind := range []string{"tokens", "cost"} {
					v, ok := changes[kind]
					if !ok {
						continue
					}
					ns, err := c.SetSetting(ctx, s.ID, api.BudgetSetting(kind), v)
					if err != nil {
						return usageErr(err)
					}
					s = ns
				}
				st, err := c.State(ctx, s.Branch)
				if err != nil {
					return err
				}
				rows := budgetRows(s, st)
				if asJSON {
					return writeJSON(e.stdout, rows)
				}
				tw := table(e.stdout)
				fmt.Fprintln(tw, "BUDGET\tLIMIT\tSPENT\tLEFT")
				for _, r := range rows {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Budget, budgetText(r.Budget, r.Limit), budgetText(r.Budget, r.Spent), r.left())
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().StringVar(&tokens, "tokens", "", "token budget (input + output): 200000, 200k, 1.5M, or none")
	cmd.Flags().StringVar(&cost, "cost", "", "cost budget in dollars (model registry prices), or none")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the budgets as JSON")
	return cmd
}

// budgetRow is one budget of a session as exo budget shows it (a limit of 0: none).
type budgetRow struct {
	Budget string  `json:"budget"`
	Limit  float64 `json:"limit"`
	Spent  float64 `json:"spent"`
}

// left says what is left of a budget.
func (r budgetRow) left() string {
	switch {
	case r.Limit <= 0:
		return "-"
	case r.Spent >= r.Limit:
		return "spent: raise it to go on"
	}
	return budgetText(r.Budget, r.Limit-r.Spent)
}

// budgetRows reads a session's budgets and its spend (its history's model calls).
func budgetRows(s *api.Session, st *api.SessionState) []budgetRow {
	tokens, _ := api.ParseBudget("tokens", s.Settings[api.SettingBudgetTokens])
	cost, _ := api.ParseBudget("cost", s.Settings[api.SettingBudgetCost])
	return []budgetRow{
		{Budget: "tokens", Limit: tokens, Spent: float64(st.Usage.Input + st.Usage.Output)},
		{Budget: "cost", Limit: cost, Spent: st.Cost},
	}
}

// budgetText writes an amount of a budget (none for no limit).
func budgetText(kind string, v float64) string {
	switch {
	case v <= 0 && kind == "cost":
		return "$0"
	case kind == "cost":
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("%.0f", v)
}
