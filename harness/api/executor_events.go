package api

import (
	"fmt"
	"strings"
)

// External executor event types: which executor runs a session's turns (exo's own or an agent
// such as Claude Code driven by exo), how an agent's turn ended by its own account, and an agent
// process that failed.
const (
	TypeExecutorSelected = "executor.selected"
	TypeExecutorStarted  = "executor.started"
	TypeExecutorResult   = "executor.result"
	TypeExecutorFailed   = "executor.failed"
)

// DefaultExecutorName is the name of exo's own executor.
const DefaultExecutorName = "default"

// ExecutorSelected records the executor in force from this event on; a session without one runs
// exo's own executor. The next turn of any executor carries on from the log.
type ExecutorSelected struct {
	Name string `json:"name"`
	// Version is the agent's version as it reports it (e.g. "2.1.330 (Claude Code)").
	Version string `json:"version,omitempty"`
	// Binary is the agent program's path.
	Binary string `json:"binary,omitempty"`
	// NativeTools is set when the agent runs its own tools (every use approved by exo) rather
	// than exo's.
	NativeTools bool `json:"native_tools,omitempty"`
	// Confinement is how the agent process itself is confined (with native tools).
	Confinement string `json:"confinement,omitempty"`
}

// ExecutorStarted records that an agent process started for the session, and what confines it:
// the user is told plainly when something is not enforced.
type ExecutorStarted struct {
	Executor string `json:"executor"`
	// NativeTools is set when the agent runs commands and edits files itself.
	NativeTools bool `json:"native_tools,omitempty"`
	// Confinement is what the agent process runs under, in one line.
	Confinement string `json:"confinement"`
	// Unconfined lists what is not enforced on this machine ("" when all is).
	Unconfined []string `json:"unconfined,omitempty"`
	// Allowed is set when the user allowed an agent that acts itself to run so.
	Allowed bool `json:"allowed_unconfined,omitempty"`
}

// ExecutorResult is an external agent's own summary of a turn (Claude Code's result message):
// model traffic is recorded by exo's model endpoint, so its cost here is informative only.
type ExecutorResult struct {
	Executor   string  `json:"executor"`
	Subtype    string  `json:"subtype,omitempty"` // success, error_during_execution, error_max_turns…
	IsError    bool    `json:"is_error,omitempty"`
	Result     string  `json:"result,omitempty"`
	NumTurns   int     `json:"num_turns,omitempty"`
	DurationMs int64   `json:"duration_ms,omitempty"`
	APIMs      int64   `json:"duration_api_ms,omitempty"`
	AgentCost  float64 `json:"agent_cost_usd,omitempty"`
	StopReason string  `json:"stop_reason,omitempty"`
	Denials    int     `json:"permission_denials,omitempty"`
}

// ExecutorFailed records an external agent process that failed or died; the turn it was running
// ended there, and everything recorded before stays.
type ExecutorFailed struct {
	Executor string `json:"executor"`
	Error    string `json:"error"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Signal   string `json:"signal,omitempty"`
	// Stderr is the tail of the agent's error output (redacted).
	Stderr string `json:"stderr,omitempty"`
}

func init() {
	RegisterType(TypeExecutorSelected, typed(FamilySession, func(p *ExecutorSelected) string {
		s := "executor " + p.Name
		if p.Version != "" {
			s += " " + p.Version
		}
		if p.NativeTools {
			s += " (native tools)"
		}
		return s
	}))
	RegisterType(TypeExecutorStarted, typed(FamilySession, func(p *ExecutorStarted) string {
		if len(p.Unconfined) == 0 {
			return p.Executor + " runs confined: " + p.Confinement
		}
		s := p.Executor + " runs NOT FULLY CONFINED: " + strings.Join(p.Unconfined, "; ")
		if p.Allowed {
			s += " (allowed with --allow-unconfined)"
		}
		return s
	}))
	RegisterType(TypeExecutorResult, typed(FamilyModel, func(p *ExecutorResult) string {
		return fmt.Sprintf("%s %s: %d turns, %d ms %s", p.Executor, firstNonEmpty(p.Subtype, "done"), p.NumTurns, p.DurationMs, oneLine(p.Result))
	}))
	RegisterType(TypeExecutorFailed, typed(FamilyError, func(p *ExecutorFailed) string {
		return p.Executor + " failed: " + oneLine(p.Error)
	}))
	stateAppliers[TypeExecutorSelected] = func(s *SessionState, e Event, p any) {
		sel := p.(*ExecutorSelected)
		if sel.Name != s.Executor {
			s.ExecutorMode, s.AgentMode = "", ""
		}
		s.Executor, s.ExecutorNative, s.ExecutorConfinement = sel.Name, sel.NativeTools, sel.Confinement
		s.addItem(Item{Seq: e.Seq, Kind: ItemNotice, Text: Summary(e)})
	}
	stateAppliers[TypeExecutorStarted] = func(s *SessionState, e Event, p any) {
		if len(p.(*ExecutorStarted).Unconfined) > 0 {
			s.addItem(Item{Seq: e.Seq, Kind: ItemError, Text: Summary(e)})
		}
	}
	stateAppliers[TypeExecutorFailed] = func(s *SessionState, e Event, p any) {
		f := p.(*ExecutorFailed)
		// The turn ended there: no approval waits any more (one asked when the agent died was
		// answered "not approved" to nobody, without an approval.resolved).
		s.Status, s.LastError, s.ModelInFlight = StatusFailed, f.Executor+": "+f.Error, 0
		s.dropApprovals()
		s.addItem(Item{Seq: e.Seq, Kind: ItemError, Text: Summary(e)})
	}
}

// ExoMCPServer is the name exo gives its tools' MCP server when it offers them to an agent; the
// agents that reach tools over MCP name them after it (Claude Code and the Claude ACP adapter:
// mcp__exo__bash).
const ExoMCPServer = "exo"

// exoToolPrefix is how Claude Code names the tools of the MCP server named exo.
const exoToolPrefix = "mcp__" + ExoMCPServer + "__"

// ExoToolName returns the name exo knows one of its own tools by, given the name an agent used
// for it (mcp__exo__bash or the Gemini CLI's mcp_exo_bash → bash); any other name is returned as it is. What is recorded uses
// exo's names, so every executor reads the same conversation.
func ExoToolName(name string) string {
	if rest, ok := strings.CutPrefix(name, exoToolPrefix); ok && rest != "" {
		return rest
	}
	if rest, ok := strings.CutPrefix(name, geminiExoToolPrefix); ok && rest != "" {
		return rest
	}
	return name
}

// geminiExoToolPrefix starts the names the Gemini CLI gives the tools of exo's MCP server
// (mcp_exo_bash).
const geminiExoToolPrefix = "mcp_exo_"

// AgentToolName is the name Claude Code knows one of exo's tools by (bash → mcp__exo__bash).
func AgentToolName(name string) string { return exoToolPrefix + name }
