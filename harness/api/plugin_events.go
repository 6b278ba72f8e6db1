package api

import (
	"fmt"
	"strings"
)

// Plugin event types: an MCP server's state changes (connected, failed, crashed, hung and
// killed, restarted) and each run of a user hook.
const (
	TypeMCPServer = "mcp.server"
	TypeHookRun   = "hook.run"
)

// MCP server states recorded in mcp.server events.
const (
	MCPConnected = "connected"
	MCPFailed    = "failed"
	MCPCrashed   = "crashed"
	MCPHung      = "hung"
	MCPStopped   = "stopped"
)

// MCPServer records a state change of an MCP server used by a session. It carries the server's
// name and configuration as written (before variable expansion): never a secret value.
type MCPServer struct {
	Server string `json:"server"`
	State  string `json:"state"`
	// Transport is stdio, http or sse.
	Transport string `json:"transport"`
	// Target is the command line (stdio) or URL (http, sse) as configured, unexpanded.
	Target string `json:"target,omitempty"`
	Tools  int    `json:"tools,omitempty"`
	// Confinement says how a stdio server runs (e.g. "sandboxed: writes workspace only").
	Confinement string `json:"confinement,omitempty"`
	Error       string `json:"error,omitempty"`
	// Stderr is the tail of a crashed server's error output, redacted.
	Stderr string `json:"stderr,omitempty"`
	// Restarts counts restarts in this exo process.
	Restarts int `json:"restarts,omitempty"`
}

// HookRun records one run of a user hook: the event it ran for, its command and its outcome.
type HookRun struct {
	Event   string `json:"event"` // PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart, PreCompact
	Matcher string `json:"matcher,omitempty"`
	Command string `json:"command"`
	Source  string `json:"source,omitempty"` // the settings file it came from
	Tool    string `json:"tool,omitempty"`
	CallID  string `json:"call_id,omitempty"`
	// Decision is allow, ask, block, rewrite, context, stop (continue:false) or "" (no opinion).
	Decision   string `json:"decision,omitempty"`
	Reason     string `json:"reason,omitempty"`
	ExitCode   int    `json:"exit_code"`
	TimedOut   bool   `json:"timed_out,omitempty"`
	Error      string `json:"error,omitempty"`
	Output     string `json:"output,omitempty"` // stdout and stderr, bounded and redacted
	DurationMs int64  `json:"duration_ms"`
}

func init() {
	RegisterType(TypeMCPServer, typed(FamilyTool, func(p *MCPServer) string {
		parts := []string{"mcp " + p.Server + " " + p.State}
		if p.Tools > 0 {
			parts = append(parts, fmt.Sprintf("(%d tools)", p.Tools))
		}
		if p.Error != "" {
			parts = append(parts, oneLine(p.Error))
		}
		return strings.Join(parts, " ")
	}))
	RegisterType(TypeHookRun, typed(FamilyPolicy, func(p *HookRun) string {
		s := fmt.Sprintf("hook %s %s", p.Event, oneLine(p.Command))
		switch {
		case p.TimedOut:
			s += " timed out"
		case p.Decision != "":
			s += " → " + p.Decision
		}
		if p.Reason != "" {
			s += ": " + oneLine(p.Reason)
		}
		return s
	}))
}
