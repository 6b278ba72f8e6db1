package executor

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/config"
)

// TestTodoWriteKeepsThePlan: the model's todo_write calls run without asking even when every
// change asks (they change nothing but the plan), each call's list becomes the session's plan,
// and the result tells the model where the plan stands.
func TestTodoWriteKeepsThePlan(t *testing.T) {
	h, s, _ := setup(t, "todo.yaml")
	x := New(h, Options{Headless: true})
	res, err := x.PromptWith(context.Background(), s.ID, "what is here?", "test", TurnOptions{Approval: config.ApprovalAsk})
	if err != nil || res.Failure != "" {
		t.Fatalf("turn: %+v %v", res, err)
	}
	st, err := h.State(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []harness.PlanStep{{Text: "Look at the workspace", Status: "completed"}, {Text: "Write the answer", Status: "in_progress"}}
	if st.Plan == nil || len(st.Plan.Steps) != 2 || st.Plan.Steps[0] != want[0] || st.Plan.Steps[1] != want[1] {
		t.Fatalf("plan: %+v", st.Plan)
	}
	var outs []string
	evs, _ := h.Events(s.ID, 0, 0)
	for _, e := range evs {
		if e.Type == harness.TypeApprovalRequested {
			t.Fatalf("todo_write asked: %s", e.Data)
		}
		if e.Type == harness.TypeToolStarted {
			p, _ := harness.Decode(e)
			if c := p.(*harness.ToolStarted); c.Tool == api.ToolTodoWrite && !strings.HasPrefix(c.Summary, "plan: ") {
				t.Fatalf("summary: %q", c.Summary)
			}
		}
		if e.Type == harness.TypeToolCompleted {
			p, _ := harness.Decode(e)
			if c := p.(*harness.ToolCompleted); c.Tool == api.ToolTodoWrite {
				outs = append(outs, c.Output)
			}
		}
	}
	if len(outs) != 2 || !strings.Contains(outs[1], "(1/2 done)") || !strings.Contains(outs[1], "[~] Write the answer") {
		t.Fatalf("results: %q", outs)
	}
}

// TestTodoWriteRefusesAMalformedList: a step with an unknown status is refused with the reason,
// and the schema offered to the model is valid JSON naming the statuses.
func TestTodoWriteRefusesAMalformedList(t *testing.T) {
	out := runTodoWrite(context.Background(), toolCtx{}, json.RawMessage(`{"todos":[{"content":"a","status":"started"}]}`))
	if !out.isError || !strings.Contains(out.text, "pending, in_progress or completed") {
		t.Fatalf("refusal: %+v", out)
	}
	if out := runTodoWrite(context.Background(), toolCtx{}, json.RawMessage(`{"todos":[]}`)); out.isError || !strings.Contains(out.text, "cleared") {
		t.Fatalf("empty list: %+v", out)
	}
	var found bool
	for _, tl := range builtinTools() {
		if tl.spec.Name == api.ToolTodoWrite {
			found = json.Valid(tl.spec.Schema) && strings.Contains(string(tl.spec.Schema), `"in_progress"`)
		}
	}
	if !found {
		t.Fatal("todo_write is not offered with a valid schema")
	}
}
