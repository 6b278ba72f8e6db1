package api

import "fmt"

// MCPStatus is one MCP server's state, for exo doctor, exo mcp ls and the app.
type MCPStatus struct {
	Name        string `json:"name"`
	Scope       string `json:"scope"`
	Transport   string `json:"transport"`
	Target      string `json:"target"`
	State       string `json:"state"`
	Tools       int    `json:"tools"`
	Error       string `json:"error,omitempty"`
	Confinement string `json:"confinement,omitempty"`
	Restarts    int    `json:"restarts,omitempty"`
	Disabled    bool   `json:"disabled,omitempty"`
}

// An MCP server's transports and scopes, as MCPStatus names them and exo mcp add takes them.
const (
	MCPTransportStdio = "stdio"   // MCPTransportStdio is a server run as a command on stdin and stdout.
	MCPScopeProject   = "project" // MCPScopeProject is the project's .mcp.json.
	MCPScopeUser      = "user"    // MCPScopeUser is the user's mcp.json in exo's config folder.
)

// MCPUntrusted is the state of a project's MCP server the user has not trusted yet.
const MCPUntrusted = "untrusted"

// MCPSummary renders MCP servers' statuses for a status bar ("mcp 2/3 (name crashed)"), "" when
// none is enabled; failing is set when one failed, crashed, hung or is not trusted.
func MCPSummary(st []MCPStatus, err error) (text string, failing bool) {
	if err != nil {
		return "mcp: " + err.Error(), true
	}
	enabled, up := 0, 0
	var bad []string
	for _, s := range st {
		if s.Disabled {
			continue
		}
		enabled++
		switch s.State {
		case MCPConnected:
			up++
		case MCPFailed, MCPCrashed, MCPHung:
			bad = append(bad, s.Name+" "+s.State)
		case MCPUntrusted:
			bad = append(bad, s.Name+" untrusted: exo trust")
		}
	}
	if enabled == 0 {
		return "", false
	}
	text = fmt.Sprintf("mcp %d/%d", up, enabled)
	if len(bad) > 0 {
		text += " (" + bad[0]
		if len(bad) > 1 {
			text += fmt.Sprintf(" +%d", len(bad)-1)
		}
		text += ")"
	}
	return text, len(bad) > 0
}

// CommandInfo is a custom slash command a workspace offers (its .exo/commands and the user's),
// as a client lists it.
type CommandInfo struct {
	Name         string `json:"name"`
	Description  string `json:"description,omitempty"`
	ArgumentHint string `json:"argument_hint,omitempty"`
	Source       string `json:"source,omitempty"`
}
