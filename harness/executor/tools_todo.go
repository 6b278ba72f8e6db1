package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"exo/harness/api"
)

// todoTool keeps the agent's plan: the list is recorded with the call (tool.started), from which
// the session's projection folds the plan the apps show as a checklist. Its arguments are
// api.TodoArgs, the whole list each time as Claude Code's TodoWrite, which api.ParseTodos
// decodes; the schema adds the statuses ParseTodos accepts and leaves out activeForm, Claude's
// field, accepted but not asked for.
func todoTool() tool {
	return newTool(api.ToolTodoWrite, "Keep a to-do list of your plan for work of several steps; the user sees it as a checklist that updates live. Send the whole list each time, with each step pending, in_progress or completed; keep one step in_progress and mark steps completed as soon as they are done.",
		runner[api.TodoArgs](runTodoWrite), todoStatuses)
}

// todoStatuses lists the statuses a to-do may have in todo_write's schema.
func todoStatuses(s *jsonschema.Schema) {
	item := s.Properties["todos"].Items
	delete(item.Properties, "activeForm")
	item.PropertyOrder = slices.DeleteFunc(item.PropertyOrder, func(p string) bool { return p == "activeForm" })
	item.Properties["status"].Enum = []any{api.StepPending, api.StepInProgress, api.StepCompleted}
}

// runTodoWrite checks the list and answers with where the plan stands; it changes nothing else.
func runTodoWrite(_ context.Context, _ toolCtx, raw json.RawMessage) toolOutput {
	todos, err := api.ParseTodos(raw)
	if err != nil {
		return failed(err.Error())
	}
	p, _ := api.PlanOfTodos("", raw)
	if len(todos) == 0 {
		return toolOutput{text: "the to-do list is cleared"}
	}
	done := 0
	for _, t := range todos {
		if t.Status == api.StepCompleted {
			done++
		}
	}
	return toolOutput{text: fmt.Sprintf("to-do list updated (%d/%d done):\n%s", done, len(todos), api.PlanChecklist(&p))}
}
