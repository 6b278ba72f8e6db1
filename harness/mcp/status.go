package mcp

import "exo/harness/api"

// Status is one server's state, for exo doctor, exo mcp ls and the app (api.MCPStatus).
type Status = api.MCPStatus
