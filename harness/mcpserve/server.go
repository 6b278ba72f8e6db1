package mcpserve

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"exo/harness/api"
)

// Options tune the server.
type Options struct {
	// Version is exo's version, reported in the MCP handshake.
	Version string
	// Workspace is where new sessions start when a call names none (exo mcp serve's directory);
	// new sessions may work in it and beneath it (unless it is / or the home folder).
	Workspace string
	// Allow are further folders new sessions may work in and beneath (exo mcp serve --allow).
	Allow []string
}

// instructions tell the calling model what exo is and how its tools fit together.
const instructions = `exo is a terminal agent harness whose sessions are event logs: every prompt, model call, tool call and approval is an event numbered by seq. Sessions can be forked at any seq (a sibling that shares history up to there, with its own copy of the workspace) and rewound to a seq (files restored too; the abandoned tail stays stored).
Typical use: list_sessions to find one (or new_session), read_log to see what happened, run_turn to give its agent a prompt and get the answer, exec to run a command in its sandbox, fork_session to try an alternative without disturbing it, drift to see whether siblings strayed from their scope or touch the same files.
Tool calls that need the user's approval are answered by the user in the exo app, never by you: they wait while the app shows the session, and are refused otherwise. The same holds for your own exec (under the session's rules for bash) and rewind_session (which asks unless the session's rules say otherwise); pass wait_for_approval to wait for the user's answer even when no app shows the session yet.
new_session works only in folders the user opened to you: exo mcp serve's directory and beneath it, folders given with --allow, and workspaces of existing exo sessions.`

// New builds the MCP server over a harness client. The client stays the caller's to close.
func New(c api.Client, o Options) *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "exo", Title: "exo sessions", Version: o.Version},
		&sdk.ServerOptions{Instructions: instructions})
	t := &tools{c: c, o: o}
	t.addSessions(srv)
	t.addTurns(srv)
	t.addSandbox(srv)
	return srv
}

// Serve runs the server on a transport (sdk.StdioTransport for exo mcp serve) until the client
// goes away or ctx ends.
func Serve(ctx context.Context, c api.Client, o Options, t sdk.Transport) error {
	if err := New(c, o).Run(ctx, t); err != nil && ctx.Err() == nil {
		return fmt.Errorf("MCP server: %w", err)
	}
	return nil
}

// tools holds what every tool handler needs.
type tools struct {
	c api.Client
	o Options
}
