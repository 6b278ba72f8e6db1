// Package mcpserve is `exo mcp serve`: an MCP server (stdio, official Go SDK) that lends exo's
// sessions to other agents — Claude Code, Codex, Cursor or anything that speaks MCP. It is a
// client of exo's daemon like every exo command (it holds an api.Client and nothing else), so
// what it does is recorded in the sessions' logs, runs under the daemon's approvals and
// sandboxes, and shows live in every exo app watching.
//
// Tools: list_sessions, new_session, read_log, fork_session, rewind_session, say, run_turn,
// wait_turn, cancel_turn, exec and drift. Every result and error passes through the harness's
// redaction before it leaves, so no sealed secret's value reaches the calling agent.
//
// Approvals are never given by the calling agent: a turn's tool call that needs one waits for
// an answer in the exo app when the app watches the session (or when the caller asks to wait),
// and is otherwise refused and recorded as refused, as for any headless turn.
package mcpserve
