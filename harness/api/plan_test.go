package api

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPlanFoldsFromEveryAgentsTodos: the session's plan is the newest one any agent stated:
// exo's todo_write, Claude Code's TodoWrite (its activeForm names the step in progress), an
// agent.plan (Codex, ACP); an empty list clears it, a call that is not a list leaves it, and a
// clone does not share it.
func TestPlanFoldsFromEveryAgentsTodos(t *testing.T) {
	st := NewSessionState("b")
	st.Apply(mustEvent(t, 1, TypeToolStarted, ToolStarted{CallID: "c1", Tool: ToolTodoWrite,
		Args: json.RawMessage(`{"todos":[{"content":"read the code","status":"completed"},{"content":"fix it","status":"in_progress"},{"content":"test it","status":"pending"}]}`)}))
	if st.Plan == nil || len(st.Plan.Steps) != 3 || st.Plan.Steps[1] != (PlanStep{Text: "fix it", Status: StepInProgress}) {
		t.Fatalf("todo_write: %+v", st.Plan)
	}
	if !PlanOpen(st.Plan) {
		t.Fatal("a plan with steps to do is open")
	}
	c := st.Clone()
	c.Plan.Steps[0].Text = "changed"
	if st.Plan.Steps[0].Text != "read the code" {
		t.Fatal("a clone shares the plan")
	}
	st.Apply(mustEvent(t, 2, TypeToolStarted, ToolStarted{CallID: "c2", Tool: ClaudeTodoWrite,
		Args: json.RawMessage(`{"todos":[{"content":"Run tests","status":"in_progress","activeForm":"Running tests"}]}`)}))
	if len(st.Plan.Steps) != 1 || st.Plan.Steps[0].Text != "Running tests" {
		t.Fatalf("TodoWrite: %+v", st.Plan)
	}
	st.Apply(mustEvent(t, 3, TypeToolStarted, ToolStarted{CallID: "c3", Tool: "mcp__exo__" + ToolTodoWrite, Args: json.RawMessage(`{"oops":1}`)}))
	if len(st.Plan.Steps) != 1 {
		t.Fatalf("a malformed call changed the plan: %+v", st.Plan)
	}
	st.Apply(mustEvent(t, 4, TypeAgentPlan, AgentPlan{Executor: "codex", Steps: []PlanStep{{Text: "a", Status: "completed"}, {Text: "b", Status: "completed"}}}))
	if len(st.Plan.Steps) != 2 || st.Plan.Executor != "codex" || PlanOpen(st.Plan) {
		t.Fatalf("agent.plan: %+v", st.Plan)
	}
	st.Apply(mustEvent(t, 5, TypeToolStarted, ToolStarted{CallID: "c4", Tool: "bash", Args: json.RawMessage(`{"todos":[]}`)}))
	if st.Plan == nil {
		t.Fatal("another tool's call cleared the plan")
	}
	st.Apply(mustEvent(t, 6, TypeToolStarted, ToolStarted{CallID: "c5", Tool: ToolTodoWrite, Args: json.RawMessage(`{"todos":[]}`)}))
	if st.Plan != nil {
		t.Fatalf("an empty list keeps the plan: %+v", st.Plan)
	}
}

// TestParseTodosRefusesWhatIsNoList: a to-do without content or with an unknown status is
// refused with a reason the model can act on, and such a call leaves the plan as it was.
func TestParseTodosRefusesWhatIsNoList(t *testing.T) {
	for args, want := range map[string]string{
		`{"todos":[{"content":"a","status":"doing"}]}`:   `status "doing"`,
		`{"todos":[{"content":" ","status":"pending"}]}`: "no content",
		`{"todo":[]}`: "no todos",
		`[1,2]`:       "not a to-do list",
	} {
		if _, err := ParseTodos(json.RawMessage(args)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", args, err)
		}
		st := NewSessionState("b")
		st.Plan = &AgentPlan{Steps: []PlanStep{{Text: "kept", Status: StepPending}}}
		st.Apply(mustEvent(t, 1, TypeToolStarted, ToolStarted{CallID: "c", Tool: ToolTodoWrite, Args: json.RawMessage(args)}))
		if st.Plan == nil || st.Plan.Steps[0].Text != "kept" {
			t.Errorf("%s changed the plan: %+v", args, st.Plan)
		}
	}
}
