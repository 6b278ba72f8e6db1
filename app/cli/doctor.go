package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"exo/harness/api"
	"exo/views/plaintext"
)

func doctorCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Report EXO_HOME, the database, its schema and sizes, the daemon and the sandbox",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			err := e.withClient(func(ctx context.Context, c api.Client) error {
				rep, err := c.Doctor(ctx, e.cwd())
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(e.stdout, rep)
				}
				printDoctor(e, rep)
				if rep.ReadOnly != "" {
					fmt.Fprintf(e.stdout, "\nread-only\t%s\n  exo lists, shows and verifies what is there; it changes nothing (no new session, turn or setting)\n", rep.ReadOnly)
				}
				if rep.Damaged != "" {
					fmt.Fprintf(e.stdout, "\ndamaged\t%s\n%s", rep.Damaged, damageAdvice(rep.Home))
					return failf(ExitFailure, "the database is damaged: writes are refused")
				}
				return nil
			})
			if (api.HasCode(err, api.CodeCorrupt) || api.HasCode(err, api.CodeForeign)) && !asJSON {
				return e.doctorDamaged(err)
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printDoctor renders the report as text.
func printDoctor(e *env, rep api.DoctorReport) {
	tw := table(e.stdout)
	fmt.Fprintf(tw, "EXO_HOME\t%s\n", rep.Home)
	if c := rep.Cluster; c != nil {
		printCluster(tw, c)
	} else {
		fmt.Fprintf(tw, "database\t%s (schema %d, %s)\n", rep.DB, rep.Schema, humanBytes(rep.DBBytes))
	}
	fmt.Fprintf(tw, "sessions\t%d\n", rep.Sessions)
	fmt.Fprintf(tw, "artifacts\t%d (%s)\n", rep.Artifacts, humanBytes(rep.ArtifactBytes))
	fmt.Fprintf(tw, "models\t%d (default: %s)\n", rep.Models, orDash(rep.DefaultModel))
	if d := rep.Daemon; d != nil {
		fmt.Fprintf(tw, "daemon\tpid %d, up %s, build %.12s, protocol %d\n", d.Pid, time.Since(d.Started).Round(time.Second), d.Build, d.Protocol)
		fmt.Fprintf(tw, "socket\t%s\n", d.Socket)
		fmt.Fprintf(tw, "daemon log\t%s\n", d.Log)
	}
	fmt.Fprintf(tw, "sandbox\t%s\n", rep.Enforced)
	if rep.Agents != "" {
		fmt.Fprintf(tw, "agent processes\t%s\n", rep.Agents)
		if !rep.AgentsConfined {
			fmt.Fprintf(tw, "\tagents that act themselves (--native-tools, acp:…) are refused here unless run with --allow-unconfined\n")
		}
	}
	for _, s := range rep.MCP {
		fmt.Fprintf(tw, "mcp %s\t%s\n", s.Name, mcpLine(s))
	}
	for _, x := range rep.Executors {
		fmt.Fprintf(tw, "executor %s\t%s\n", x.Name, executorLine(x))
	}
	tw.Flush()
	fmt.Fprintf(e.stdout, "\nwhat this machine supports:\n%s\n", rep.SandboxText)
	printRecovery(e.stdout, rep.Recovered)
}

// humanBytes renders a byte count with a binary unit.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// orDash returns s, or "-" when empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// mcpLine is one MCP server's doctor line: state, tools, confinement or error.
func mcpLine(s api.MCPStatus) string {
	line := fmt.Sprintf("%s %s: %s", s.Transport, s.Scope, stateText(s))
	if s.State == api.MCPConnected {
		line += fmt.Sprintf(", %s, %s", plaintext.Plural(s.Tools, "tool"), s.Confinement)
	}
	if s.Error != "" {
		line += " — " + s.Error
	}
	return line
}

// executorLine says whether an executor is usable, with its version and binary or the problem.
func executorLine(x api.ExecutorInfo) string {
	switch {
	case !x.Usable:
		return "not usable: " + x.Problem
	case x.Binary == "":
		return "usable (" + x.Version + ")"
	}
	return "usable: " + x.Version + " (" + x.Binary + ")"
}

// printCluster renders the etcd cluster of a shared store: what is asked of it when something
// goes wrong (who leads, who answers, how full it is, this daemon's name and lease).
func printCluster(tw io.Writer, c *api.ClusterReport) {
	fmt.Fprintf(tw, "store\tetcd %s, namespace %s\n", strings.Join(c.Endpoints, ","), c.Namespace)
	fmt.Fprintf(tw, "node\t%s\n", c.Node)
	switch {
	case c.Reachable:
		fmt.Fprintf(tw, "reachable\tyes (%s since it opened)\n", plaintext.Plural(c.Outages, "outage"))
	default:
		fmt.Fprintf(tw, "reachable\tNO, since %s: %s\n", c.Since.Local().Format(time.TimeOnly), c.Unreachable)
	}
	if c.Error != "" {
		fmt.Fprintf(tw, "cluster\t%s\n", c.Error)
	}
	for _, m := range c.Members {
		state := "v" + m.Version + ", " + humanBytes(m.DBBytes)
		if m.Error != "" {
			state = "not answering: " + m.Error
		}
		role := ""
		if m.Name == c.Leader {
			role = " (leader)"
		}
		if m.Learner {
			role += " (learner)"
		}
		fmt.Fprintf(tw, "member %s%s\t%s %s\n", orDash(m.Name), role, strings.Join(m.ClientURLs, ","), state)
	}
	fmt.Fprintf(tw, "leader\t%s\n", orDash(c.Leader))
	fmt.Fprintf(tw, "revision\t%d\n", c.Revision)
	if c.QuotaBytes > 0 {
		fmt.Fprintf(tw, "space\t%s of %s quota (%.1f%%)\n", humanBytes(c.DBBytes), humanBytes(c.QuotaBytes), 100*float64(c.DBBytes)/float64(c.QuotaBytes))
	}
	if len(c.Alarms) > 0 {
		fmt.Fprintf(tw, "alarms\t%s\n", strings.Join(c.Alarms, ", "))
	}
	if c.Lease != 0 {
		fmt.Fprintf(tw, "lease\t%x, TTL %ds, %ds left\n", c.Lease, c.TTLSeconds, c.LeftSeconds)
	} else {
		fmt.Fprintf(tw, "lease\tnone held (TTL %ds): this daemon owns no branch until it gets one\n", c.TTLSeconds)
	}
}
