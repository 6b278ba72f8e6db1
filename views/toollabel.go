package views

import "strings"

// mcpPrefix starts the names of MCP servers' tools (mcp__SERVER__TOOL).
const mcpPrefix = "mcp__"

// ToolLabel is how a tool is named on screen: an MCP server's tool (mcp__SERVER__TOOL) as
// "SERVER › TOOL", so the user sees which server runs it; any other name as it is.
func ToolLabel(name string) string {
	rest, ok := strings.CutPrefix(name, mcpPrefix)
	if !ok {
		return name
	}
	server, tool, ok := strings.Cut(rest, "__")
	if !ok || server == "" || tool == "" {
		return name
	}
	return server + " › " + tool
}

// LabelLeadingTool rewrites a one-line summary that starts with an MCP tool's name (the
// timeline's tool and approval rows) to start with its ToolLabel instead.
func LabelLeadingTool(summary string) string {
	if !strings.HasPrefix(summary, mcpPrefix) {
		return summary
	}
	name, rest, _ := strings.Cut(summary, " ")
	if label := ToolLabel(name); label != name {
		if rest == "" {
			return label
		}
		return label + " " + rest
	}
	return summary
}
