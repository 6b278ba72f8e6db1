package cli

import (
	"context"
	"path/filepath"

	"github.com/spf13/cobra"

	"exo/harness/api"
)

// mcpServeCmd is `exo mcp serve`: exo's sessions as an MCP server on stdin/stdout.
func mcpServeCmd(e *env) *cobra.Command {
	var allow []string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve exo's sessions to other agents over MCP (stdio): list, read, fork, rewind, run turns, exec, drift",
		Long: "Speaks MCP on stdin and stdout; add it to an MCP client as a stdio server running 'exo mcp serve', e.g.\n" +
			"  claude mcp add exo -- exo mcp serve\n" +
			"It is a client of exo's daemon like every exo command: what the other agent does is recorded in the sessions'\n" +
			"logs and shows in the exo app; approvals are answered in the app, never by the other agent.\n" +
			"New sessions may work in this directory and beneath it (not when it is / or your home folder), beneath each\n" +
			"--allow folder, and in existing sessions' workspaces.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := e.signalContext()
			defer stop()
			c, err := e.connect(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			return e.mcpServe(ctx, c, allow)
		},
	}
	cmd.Flags().StringArrayVar(&allow, "allow", nil, "a folder (absolute) in and beneath which the other agent may create sessions (repeatable)")
	return cmd
}

// mcpServe runs the MCP server on the command's stdin and stdout until the client leaves.
func (e *env) mcpServe(ctx context.Context, c api.Client, allow []string) error {
	for i, a := range allow {
		abs, err := filepath.Abs(a)
		if err != nil {
			return usagef("--allow %s: %v", a, err)
		}
		allow[i] = abs
	}
	if e.opts.Local.MCPServe == nil {
		return errNoLocal
	}
	return e.opts.Local.MCPServe(ctx, c, MCPServe{Stdin: e.stdin, Stdout: e.stdout, Version: version(""), Workspace: e.cwd(), Allow: allow})
}
