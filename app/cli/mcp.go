package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"exo/harness/api"
)

// mcpCmd is `exo mcp`: the MCP servers whose tools exo offers to the model.
func mcpCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Manage MCP servers (.mcp.json in the project, mcp.json in the user's exo config folder)",
	}
	cmd.AddCommand(mcpAddCmd(e), mcpLsCmd(e), mcpRmCmd(e), mcpServeCmd(e))
	return cmd
}

// mcpAddFlags are `exo mcp add`'s options, named as in `claude mcp add`.
type mcpAddFlags struct {
	scope, transport, approve string
	env, headers, autoApprove []string
	timeout                   int
	noSandbox, noNetwork      bool
}

func mcpAddCmd(e *env) *cobra.Command {
	var f mcpAddFlags
	cmd := &cobra.Command{
		Use:   "add [flags] NAME COMMAND|URL [ARGS...]",
		Short: "Add an MCP server: a command (stdio) or a URL (--transport http|sse); use ${secret:NAME} for secret values",
		Example: `  exo mcp add fs -- npx -y @modelcontextprotocol/server-filesystem .
  exo mcp add --scope project github -e GITHUB_TOKEN='${secret:github}' -- npx -y @modelcontextprotocol/server-github
  exo mcp add --transport http docs https://example.com/mcp -H 'Authorization: Bearer ${secret:docs}'`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withClient(func(ctx context.Context, c api.Client) error { return e.mcpAdd(ctx, c, f, args) })
		},
	}
	cmd.Flags().StringVarP(&f.scope, "scope", "s", api.MCPScopeUser, "where to keep it: user (your exo config) or project (.mcp.json here, shared with the team)")
	cmd.Flags().StringVarP(&f.transport, "transport", "t", api.MCPTransportStdio, "stdio, http (streamable HTTP) or sse")
	cmd.Flags().StringArrayVarP(&f.env, "env", "e", nil, "KEY=VALUE for the server's environment (repeatable); VALUE may be ${secret:NAME} or ${VAR}")
	cmd.Flags().StringArrayVarP(&f.headers, "header", "H", nil, "'Name: value' HTTP header (repeatable)")
	cmd.Flags().StringVar(&f.approve, "approve", "", "default approval of its tools: ask (default), auto or deny")
	cmd.Flags().StringArrayVar(&f.autoApprove, "auto-approve", nil, "a tool (server's name for it) that runs without asking (repeatable)")
	cmd.Flags().IntVar(&f.timeout, "timeout", 0, "seconds before a tool call is given up and the server restarted (default 120)")
	cmd.Flags().BoolVar(&f.noSandbox, "no-sandbox", false, "run a stdio server unconfined (default: in exo's sandbox)")
	cmd.Flags().BoolVar(&f.noNetwork, "no-network", false, "cut a sandboxed stdio server off the network")
	return cmd
}

// mcpAdd writes one server entry.
func (e *env) mcpAdd(ctx context.Context, hc api.Client, f mcpAddFlags, args []string) error {
	a := MCPAdd{Name: args[0], Args: args[1:], Scope: f.scope, Transport: f.transport, Approve: f.approve, Env: f.env, Headers: f.headers,
		AutoApprove: f.autoApprove, Timeout: f.timeout, NoSandbox: f.noSandbox, NoNetwork: f.noNetwork, Workspace: e.cwd()}
	if e.opts.Local.MCPAdd == nil {
		return errNoLocal
	}
	path, transport, err := e.opts.Local.MCPAdd(ctx, hc, a)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "added MCP server %s (%s) to %s\n", a.Name, transport, path)
	return nil
}

func mcpLsCmd(e *env) *cobra.Command {
	var asJSON, check bool
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List the MCP servers configured here (user and project); --check starts each and counts its tools",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.withClient(func(ctx context.Context, c api.Client) error {
				st, err := c.MCPStatus(ctx, e.cwd(), check)
				if err != nil {
					return err
				}
				if asJSON {
					if err := writeJSON(e.stdout, st); err != nil {
						return err
					}
					return checkFailed(check, st)
				}
				if len(st) == 0 {
					if e.opts.Local.MCPFiles == nil {
						return errNoLocal
					}
					project, user := e.opts.Local.MCPFiles()
					fmt.Fprintf(e.stdout, "no MCP servers: add one with 'exo mcp add', or write %s here or %s\n", project, user)
					return nil
				}
				tw := table(e.stdout)
				fmt.Fprintln(tw, "NAME\tSCOPE\tTYPE\tSTATE\tTOOLS\tTARGET")
				for _, s := range st {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, s.Scope, s.Transport, stateText(s), toolsText(s), s.Target)
				}
				tw.Flush()
				for _, s := range st {
					if s.Error != "" {
						fmt.Fprintf(e.stdout, "%s: %s\n", s.Name, s.Error)
					}
				}
				return checkFailed(check, st)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&check, "check", false, "start each server, list its tools, stop it")
	return cmd
}

// checkFailed is exo mcp ls --check's verdict: an error (exit 1) naming the enabled servers
// that are not connected after the check (failed, crashed, hung, not trusted), nil when every
// one answered (or without check).
func checkFailed(check bool, st []api.MCPStatus) error {
	if !check {
		return nil
	}
	var bad []string
	enabled := 0
	for _, s := range st {
		if s.Disabled {
			continue
		}
		enabled++
		if s.State != api.MCPConnected {
			bad = append(bad, s.Name+" "+stateText(s))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return failf(ExitFailure, "MCP check failed: %d of %d servers not working (%s)", len(bad), enabled, strings.Join(bad, ", "))
}

// stateText is a server's state for tables.
func stateText(s api.MCPStatus) string {
	switch {
	case s.Disabled:
		return "disabled"
	case s.State == "":
		return "configured"
	}
	return s.State
}

// toolsText is a tool count, or "-" when unknown.
func toolsText(s api.MCPStatus) string {
	if s.State == "" || s.Disabled {
		return "-"
	}
	return fmt.Sprint(s.Tools)
}

func mcpRmCmd(e *env) *cobra.Command {
	var scope string
	cmd := &cobra.Command{
		Use:   "rm NAME",
		Short: "Remove an MCP server (from --scope, or from whichever of project and user has it)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			scopes := []string{api.MCPScopeProject, api.MCPScopeUser}
			if scope != "" {
				scopes = []string{scope}
			}
			if e.opts.Local.MCPRemove == nil {
				return errNoLocal
			}
			for _, sc := range scopes {
				path, ok, err := e.opts.Local.MCPRemove(sc, e.cwd(), args[0])
				if err != nil {
					return err
				}
				if ok {
					fmt.Fprintf(e.stdout, "removed MCP server %s from %s\n", args[0], path)
					return nil
				}
			}
			return usagef("no MCP server %q here (exo mcp ls)", args[0])
		},
	}
	cmd.Flags().StringVarP(&scope, "scope", "s", "", "user or project")
	return cmd
}
