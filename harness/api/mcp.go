package api

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
