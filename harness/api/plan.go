package api

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Names of the to-do tools whose calls state a plan: exo's own and Claude Code's.
const (
	ToolTodoWrite   = "todo_write"
	ClaudeTodoWrite = "TodoWrite"
)

// Plan step statuses (PlanStep.Status).
const (
	StepPending    = "pending"
	StepInProgress = "in_progress"
	StepCompleted  = "completed"
)

// TodoItem is one entry of a to-do tool's list: exo's todo_write and Claude Code's TodoWrite
// take the same shape (Claude adds activeForm, the step's wording while it runs).
type TodoItem struct {
	Content    string `json:"content" jsonschema:"the step, imperative (\"Run the tests\")"`
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm,omitempty"`
}

// TodoArgs are the arguments of a to-do tool call.
type TodoArgs struct {
	Todos []TodoItem `json:"todos" jsonschema:"the whole list, replacing the previous one"`
}

// IsTodoTool reports whether a tool's calls state the session's plan: exo's todo_write (also
// as an agent names it through exo's MCP server) or Claude Code's TodoWrite.
func IsTodoTool(name string) bool {
	name = strings.TrimPrefix(name, "mcp__exo__")
	return name == ToolTodoWrite || name == ClaudeTodoWrite
}

// ParseTodos reads a to-do tool call's arguments: a list of to-dos, each with content and a
// status of pending, in_progress or completed.
func ParseTodos(args json.RawMessage) ([]TodoItem, error) {
	var a TodoArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, fmt.Errorf("arguments are not a to-do list: %w", err)
	}
	if a.Todos == nil {
		return nil, fmt.Errorf("arguments have no todos list")
	}
	for i, t := range a.Todos {
		if strings.TrimSpace(t.Content) == "" {
			return nil, fmt.Errorf("to-do %d has no content", i+1)
		}
		switch t.Status {
		case StepPending, StepInProgress, StepCompleted:
		default:
			return nil, fmt.Errorf("to-do %d has status %q: use pending, in_progress or completed", i+1, t.Status)
		}
	}
	return a.Todos, nil
}

// PlanOfTodos reads a to-do tool call's arguments as a plan; ok is false when ParseTodos
// refuses them (the tool refuses the call too).
func PlanOfTodos(executor string, args json.RawMessage) (p AgentPlan, ok bool) {
	todos, err := ParseTodos(args)
	if err != nil {
		return AgentPlan{}, false
	}
	a := TodoArgs{Todos: todos}
	p = AgentPlan{Executor: executor, Steps: make([]PlanStep, 0, len(a.Todos))}
	for _, t := range a.Todos {
		text := t.Content
		if t.Status == StepInProgress && t.ActiveForm != "" {
			text = t.ActiveForm
		}
		p.Steps = append(p.Steps, PlanStep{Text: oneLine(text), Status: NormalStepStatus(t.Status)})
	}
	return p, true
}

// NormalStepStatus maps the spellings agents use (Codex's inProgress) to pending, in_progress
// or completed; anything else is pending.
func NormalStepStatus(s string) string {
	switch s {
	case StepCompleted, "done", "complete":
		return StepCompleted
	case StepInProgress, "inProgress", "in-progress":
		return StepInProgress
	}
	return StepPending
}

// setPlan makes p the session's plan (SessionState.Plan); a plan without steps clears it.
func (s *SessionState) setPlan(p AgentPlan) {
	if len(p.Steps) == 0 {
		s.Plan = nil
		return
	}
	p.Steps = append([]PlanStep(nil), p.Steps...)
	s.Plan = &p
}

// PlanOpen reports whether a plan has a step not completed yet.
func PlanOpen(p *AgentPlan) bool {
	if p == nil {
		return false
	}
	for _, st := range p.Steps {
		if NormalStepStatus(st.Status) != StepCompleted {
			return true
		}
	}
	return false
}

// TodoSummary is a to-do call in one line for events and the UI ("plan: 1/3 done, now: …");
// ok is false when the arguments are not a list of to-dos.
func TodoSummary(args json.RawMessage) (string, bool) {
	p, ok := PlanOfTodos("", args)
	if !ok {
		return "", false
	}
	return planSummary(&p), true
}
