package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"exo/harness/api"
)

// sessionRow is one line of `exo sessions`.
type sessionRow struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Status    api.Status `json:"status"`
	Events    uint64     `json:"events"`
	Parent    string     `json:"parent,omitempty"`
	ParentSeq uint64     `json:"parent_seq,omitempty"`
	Branch    string     `json:"branch"`
	Branches  int        `json:"branches"`
	Workspace string     `json:"workspace"`
	Model     string     `json:"model,omitempty"`
	Created   time.Time  `json:"created"`
	Running   bool       `json:"running"`
	Clients   int        `json:"clients"`
	// Node, Live and Orphaned describe another daemon's session on a shared store: the daemon
	// that runs it, whether it still holds it, and whether its workspace is unreachable here.
	Node     string `json:"node,omitempty"`
	Live     bool   `json:"live,omitempty"`
	Orphaned bool   `json:"orphaned,omitempty"`
	Archived bool   `json:"archived,omitempty"`
	// Project is the project directory's name (a fork's is its project's, not its working copy's).
	Project string `json:"project,omitempty"`
	// Damaged says why the session's log could not be read.
	Damaged string `json:"damaged,omitempty"`
}

// projectName names the project a session works for: its project setting (a fork's working copy
// is elsewhere) or its workspace, as the folder's name.
func projectName(s *api.Session) string {
	p := s.Settings["project"]
	if p == "" {
		p = s.Workspace
	}
	if p == "" {
		return "-"
	}
	return filepath.Base(p)
}

// where says where a remote session runs: "-" for this daemon's own, else the daemon and
// whether it is live, gone (exo takeover may take it) or orphaned.
func (r sessionRow) where() string {
	switch {
	case r.Node == "":
		return "-"
	case r.Live:
		return r.Node + " (live)"
	case r.Orphaned:
		return r.Node + " (orphaned)"
	}
	return r.Node + " (gone)"
}

func sessionsCmd(e *env) *cobra.Command {
	var asJSON, all bool
	cmd := &cobra.Command{
		Use:     "sessions",
		Aliases: []string{"ls"},
		Short:   "List sessions with status, events, parent and branches",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withClient(func(ctx context.Context, c api.Client) error {
				rows, err := sessionRows(ctx, c, all)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(e.stdout, rows)
				}
				return printSessions(e, rows)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVarP(&all, "all", "a", false, "list archived sessions too")
	return cmd
}

// sessionRows projects the sessions for listing (archived ones only with all).
func sessionRows(ctx context.Context, c api.Client, all bool) ([]sessionRow, error) {
	infos, err := c.ListSessions(ctx)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for _, in := range infos {
		names[in.Session.ID] = in.Session.Name
	}
	rows := make([]sessionRow, 0, len(infos))
	for _, in := range infos {
		s := in.Session
		if s.Archived && !all {
			continue
		}
		rows = append(rows, sessionRow{ID: s.ID, Name: s.Name, Status: in.Status, Events: in.Head,
			Parent: names[s.Parent], ParentSeq: s.ParentSeq, Branch: s.Branch, Branches: len(s.Branches),
			Workspace: s.Workspace, Model: in.Model, Created: s.Created, Running: in.Running, Clients: in.Clients,
			Node: in.Node, Live: in.Live, Orphaned: in.Orphaned, Archived: s.Archived, Project: projectName(s), Damaged: in.Damaged})
	}
	return rows, nil
}

func printSessions(e *env, rows []sessionRow) error {
	if len(rows) == 0 {
		fmt.Fprintln(e.stdout, "no sessions yet: start one with 'exo new' or 'exo'")
		return nil
	}
	remote := slices.ContainsFunc(rows, func(r sessionRow) bool { return r.Node != "" })
	tw := table(e.stdout)
	head := "NAME\tID\tSTATUS\tPROJECT\tEVENTS\tPARENT\tBRANCHES\tCREATED"
	if remote {
		head += "\tNODE"
	}
	fmt.Fprintln(tw, head)
	for _, r := range rows {
		parent := "-"
		if r.Parent != "" {
			parent = fmt.Sprintf("%s@%d", r.Parent, r.ParentSeq)
		}
		status := string(r.Status)
		if r.Damaged != "" {
			status = "damaged"
		}
		if r.Archived {
			status += " (archived)"
		}
		line := fmt.Sprintf("%s\t%s\t%s\t%s\t%d\t%s\t%d\t%s", r.Name, r.ID, status, r.Project, r.Events, parent, r.Branches, ago(r.Created))
		if remote {
			line += "\t" + r.where()
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if remote {
		fmt.Fprintln(e.stdout, "NODE: another daemon's session (read-only here); exo takeover SESSION makes a gone daemon's yours")
	}
	for _, r := range rows {
		if r.Damaged != "" {
			fmt.Fprintf(e.stderr, "exo: session %s is damaged: %s\n", r.Name, r.Damaged)
		}
	}
	return nil
}

func newCmd(e *env) *cobra.Command {
	var name, workspace string
	var asJSON bool
	var sf scopeFlags
	var budgetTokens int64
	var budgetCost float64
	cmd := &cobra.Command{
		Use:   "new",
		Short: "Create a session in the current directory and print its id",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case workspace == "":
				workspace = e.cwd()
			case !filepath.IsAbs(workspace):
				// relative to where the user is, never to the daemon's directory
				workspace = filepath.Join(e.cwd(), workspace)
			}
			req := api.NewSessionRequest{Name: name, Workspace: workspace, Settings: budgetSettings(budgetTokens, budgetCost),
				Scope: sf.request(), OverrideGovernance: sf.override}
			return e.withClient(func(ctx context.Context, c api.Client) error {
				s, err := c.NewSession(ctx, req)
				if errors.Is(err, api.ErrGovernanceDrift) {
					return failf(ExitFailure, "%v (or pass --override-governance to start under the stale rules)", err)
				}
				if err != nil {
					return usageErr(err)
				}
				if asJSON {
					return writeJSON(e.stdout, s)
				}
				fmt.Fprintln(e.stdout, s.ID)
				fmt.Fprintf(e.stderr, "created session %s in %s\n", s.Name, s.Workspace)
				e.warnHomeInside(s.Workspace)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "session name (default: a memorable one)")
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace directory (default: the current directory)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the session as JSON")
	cmd.Flags().Int64Var(&budgetTokens, "budget-tokens", 0, "token budget (input + output); warns at 80%, stops the session at 100%")
	cmd.Flags().Float64Var(&budgetCost, "budget-cost", 0, "cost budget in dollars (model registry prices); warns at 80%, stops at 100%")
	addScopeFlags(cmd, &sf)
	addGovernanceOverride(cmd, &sf)
	return cmd
}

// budgetSettings returns the session settings of exo new's budget flags (nil when none).
func budgetSettings(tokens int64, cost float64) map[string]string {
	if tokens <= 0 && cost <= 0 {
		return nil
	}
	m := map[string]string{}
	if tokens > 0 {
		m[api.SettingBudgetTokens] = strconv.FormatInt(tokens, 10)
	}
	if cost > 0 {
		m[api.SettingBudgetCost] = strconv.FormatFloat(cost, 'f', -1, 64)
	}
	return m
}

func sayCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "say SESSION TEXT",
		Short: "Append a user message (invocation.received) to a session, queued while a turn runs; TEXT - reads stdin",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			text := args[1]
			if text == "-" {
				var err error
				if text, err = e.stdinText(); err != nil {
					return err
				}
			}
			if text == "" {
				return usagef("empty message")
			}
			return e.withSession(args[0], func(ctx context.Context, c api.Client, s *api.Session) error {
				ev, err := c.Say(ctx, s.ID, text, "cli")
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "%s@%d\n", s.Name, ev.Seq)
				if ev.Type == api.TypePromptQueued {
					fmt.Fprintf(e.stderr, "a turn runs on %s: the message is queued and sent when it ends (exo tail %s)\n", s.Name, s.Name)
				}
				return nil
			})
		},
	}
}
