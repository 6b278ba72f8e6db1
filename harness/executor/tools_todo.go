package executor

import (
	"context"
	"encoding/json"
	"fmt"

	"exo/harness/api"
)

// todoSchema is todo_write's arguments: the whole list each time, as Claude Code's TodoWrite.
const todoSchema = `{"type":"object","properties":{"todos":{"type":"array","description":"the whole list, replacing the previous one","items":{"type":"object","properties":{"content":{"type":"string","description":"the step, imperative (\"Run the tests\")"},"status":{"type":"string","enum":["pending","in_progress","completed"]}},"required":["content","status"]}}},"required":["todos"]}`

// todoTool keeps the agent's plan: the list is recorded with the call (tool.started), from which
// the session's projection folds the plan the apps show as a checklist.
func todoTool() tool {
	return tool{spec: spec(api.ToolTodoWrite, "Keep a to-do list of your plan for work of several steps; the user sees it as a checklist that updates live. Send the whole list each time, with each step pending, in_progress or completed; keep one step in_progress and mark steps completed as soon as they are done.",
		todoSchema), run: runTodoWrite}
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
