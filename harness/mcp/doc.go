// Package mcp connects exo to Model Context Protocol servers, the way Claude Code users already
// configure them: `mcpServers` in a project's .mcp.json and in the user's config
// ($XDG_CONFIG_HOME/exo/mcp.json, else ~/.config/exo/mcp.json). Servers speak stdio (a child
// process), streamable HTTP or the older SSE transport, through the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// Their tools are offered to exo's executor as mcp__SERVER__TOOL through executor.ToolSource, so
// approvals, redaction, events and workspace snapshots apply as to exo's own tools. Values in a
// server's configuration may name variables (${VAR}, ${VAR:-default}) and sealed secrets
// (${secret:NAME}); they are expanded only when the server starts and never written to events.
//
// Stdio servers run through exo's sandbox helper: an allow-listed environment plus the variables
// their config names (no other secret reaches them), writes confined to the workspace, their own
// temporary folder and the package managers' caches, and exo's home masked where mount
// namespaces exist. A server that crashes or hangs is recorded as an mcp.server event and
// started again on the next call.
package mcp
