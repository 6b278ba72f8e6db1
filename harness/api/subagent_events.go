package api

import "fmt"

// Subagent event types: subagent.started is a child session's first own event (its prompt view
// starts afresh there); subagent.spawned and subagent.completed are recorded on the parent.
const (
	TypeSubagentSpawned   = "subagent.spawned"
	TypeSubagentStarted   = "subagent.started"
	TypeSubagentCompleted = "subagent.completed"
)

// SettingDepth is the session setting holding a subagent's depth (1 for a child of a top-level
// session); absent means 0.
const SettingDepth = "depth"

// SubagentSpawned records, on the parent, a child session started for a task.
type SubagentSpawned struct {
	Handle  string   `json:"handle"` // the child session's name
	Session string   `json:"session"`
	CallID  string   `json:"call_id,omitempty"`
	Task    string   `json:"task"`
	Allow   []string `json:"allow,omitempty"`
	Deny    []string `json:"deny,omitempty"`
	Depth   int      `json:"depth"`
}

// SubagentStarted is the first own event of a child session after its fork: the child's prompt
// view starts empty here, so the parent's conversation does not fill its context.
type SubagentStarted struct {
	Parent string `json:"parent"`
	CallID string `json:"call_id,omitempty"`
	Task   string `json:"task"`
	Depth  int    `json:"depth"`
}

// SubagentCompleted records, on the parent, a child's final report.
type SubagentCompleted struct {
	Handle   string  `json:"handle"`
	Session  string  `json:"session"`
	Response string  `json:"response,omitempty"`
	Failure  string  `json:"failure,omitempty"`
	Steps    int     `json:"steps"`
	Tokens   int     `json:"tokens,omitempty"`
	Cost     float64 `json:"cost,omitempty"`
	// Delivered is set when a waiting tool call already handed the report to the model.
	Delivered bool `json:"delivered,omitempty"`
}

func init() {
	RegisterType(TypeSubagentSpawned, typed(FamilySession, func(p *SubagentSpawned) string {
		return fmt.Sprintf("subagent %s: %s", p.Handle, oneLine(p.Task))
	}))
	RegisterType(TypeSubagentStarted, typed(FamilySession, func(p *SubagentStarted) string {
		return fmt.Sprintf("subagent of %s (depth %d): %s", p.Parent, p.Depth, oneLine(p.Task))
	}))
	RegisterType(TypeSubagentCompleted, typed(FamilySession, func(p *SubagentCompleted) string {
		if p.Failure != "" {
			return fmt.Sprintf("subagent %s failed: %s", p.Handle, oneLine(p.Failure))
		}
		return fmt.Sprintf("subagent %s done: %s", p.Handle, oneLine(p.Response))
	}))
}
