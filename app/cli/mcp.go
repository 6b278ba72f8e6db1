package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"exo/harness/api"
	"exo/harness/mcp"
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
	cmd.Flags().StringVarP(&f.scope, "scope", "s", mcp.ScopeUser, "where to keep it: user (your exo config) or project (.mcp.json here, shared with the team)")
	cmd.Flags().StringVarP(&f.transport, "transport", "t", mcp.TransportStdio, "stdio, http (streamable HTTP) or sse")
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
	name := args[0]
	c := mcp.ServerConfig{Type: f.transport, Approval: f.approve, AutoApprove: f.autoApprove, Timeout: f.timeout}
	if c.Transport() == mcp.TransportStdio {
		c.Type, c.Command, c.Args = "", args[1], args[2:]
	} else if len(args) != 2 {
		return usagef("an %s server takes NAME URL, no further arguments", c.Transport())
	} else {
		c.URL = args[1]
	}
	if f.noSandbox {
		c.Sandbox = "off"
	}
	if f.noNetwork {
		no := false
		c.Network = &no
	}
	var err error
	if c.Env, err = pairs(f.env, "="); err != nil {
		return err
	}
	if c.Headers, err = pairs(f.headers, ":"); err != nil {
		return err
	}
	if err := refuseRawSecrets(ctx, hc, c); err != nil {
		return err
	}
	path, err := mcp.PathFor(f.scope, e.cwd())
	if err != nil {
		return usageErr(err)
	}
	if err := mcp.Add(path, name, c); err != nil {
		return usageErr(err)
	}
	fmt.Fprintf(e.stdout, "added MCP server %s (%s) to %s\n", name, c.Transport(), path)
	return nil
}

// pairs parses KEY=VALUE (or Name: value) flags.
func pairs(list []string, sep string) (map[string]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, sep)
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef("%q: write KEY%sVALUE", kv, sep)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}

// refuseRawSecrets refuses a config that holds a sealed secret's raw value: the file is plain
// text (and .mcp.json is shared), so it must name the secret instead.
func refuseRawSecrets(ctx context.Context, hc api.Client, c mcp.ServerConfig) error {
	var vals []string
	vals = append(vals, c.Args...)
	for _, m := range []map[string]string{c.Env, c.Headers} {
		for _, v := range m {
			vals = append(vals, v)
		}
	}
	for _, v := range append(vals, c.URL, c.Command) {
		red, err := hc.Redact(ctx, v)
		if err != nil {
			return err
		}
		if red != v {
			return usagef("a value holds the sealed secret %s in clear; write ${secret:NAME} instead so it stays sealed", strings.TrimSpace(red))
		}
	}
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
					return writeJSON(e.stdout, st)
				}
				if len(st) == 0 {
					fmt.Fprintf(e.stdout, "no MCP servers: add one with 'exo mcp add', or write %s here or %s\n", mcp.ProjectFile, mcp.UserFile())
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
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&check, "check", false, "start each server, list its tools, stop it")
	return cmd
}

// stateText is a server's state for tables.
func stateText(s mcp.Status) string {
	switch {
	case s.Disabled:
		return "disabled"
	case s.State == "":
		return "configured"
	}
	return s.State
}

// toolsText is a tool count, or "-" when unknown.
func toolsText(s mcp.Status) string {
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
			scopes := []string{mcp.ScopeProject, mcp.ScopeUser}
			if scope != "" {
				scopes = []string{scope}
			}
			for _, sc := range scopes {
				path, err := mcp.PathFor(sc, e.cwd())
				if err != nil {
					return usageErr(err)
				}
				ok, err := mcp.Remove(path, args[0])
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
