package main

import (
	"fmt"
	"time"

	"exo/views"
)

// fakeAnswer is the markdown the demo streams.
const fakeAnswer = "Here is the plan.\n\n## Steps\n\n1. Add a `/healthz` handler.\n2. Register it in the router.\n3. Test it.\n\n```go\nfunc health(w http.ResponseWriter, _ *http.Request) {\n    w.WriteHeader(http.StatusOK)\n}\n```\n\nThat is **all** — the test passes and nothing else changes. 🚀\n"

func fakeItems() []views.ConvItem {
	return []views.ConvItem{
		{Kind: views.KindUser, Text: "Add a health check endpoint."},
		{Kind: views.KindAssistant, Text: "Looking at the **router** first."},
		{Kind: views.KindTool, Tool: "bash", ArgsSummary: "grep -rn HandleFunc .", Status: views.ToolOK, Duration: 300 * time.Millisecond, Output: "main.go:12: http.HandleFunc(\"/\", root)\nmain.go:13: http.HandleFunc(\"/api\", api)\nmain.go:14: // end\nmain.go:15: // more\n"},
		{Kind: views.KindTool, Tool: "edit", ArgsSummary: "main.go", Status: views.ToolOK, Duration: 9 * time.Millisecond, Diff: "--- a/main.go\n+++ b/main.go\n@@ -12,1 +12,2 @@\n http.HandleFunc(\"/\", root)\n+http.HandleFunc(\"/healthz\", health)\n"},
		{Kind: views.KindDenied, Text: "OPENAI_API_KEY read by bash"},
		{Kind: views.KindViolation, Text: "wrote /etc/hosts outside scope"},
		{Kind: views.KindTool, Tool: "bash", ArgsSummary: "go test ./...", Status: views.ToolRunning},
	}
}

func fakeRows(n int) views.TimelineRows {
	types := []string{"invocation.received", "model.requested", "model.completed", "tool.started", "tool.completed", "workspace.snapshot"}
	rows := make(views.TimelineRows, n)
	t0 := time.Now().Add(-time.Duration(n) * time.Second)
	for i := range rows {
		ty := types[i%len(types)]
		rows[i] = views.TimelineRow{Seq: uint64(i + 1), Time: t0.Add(time.Duration(i) * time.Second), Actor: "harness", Type: ty,
			Summary: fmt.Sprintf("%s #%d", ty, i+1), IsBranchPoint: i == 100, Abandoned: i > 100 && i < 110}
	}
	return rows
}

func fakeSiblings() []views.SiblingRow {
	return []views.SiblingRow{
		{ID: "a", Name: "health-check", Status: views.StatusRunning, Model: "demo", Scripted: true, Steps: 12, TokensIn: 48200, TokensOut: 3100, Cost: 0.42, Drift: 0.12, Current: true},
		{ID: "b", Name: "try-middleware", Status: views.StatusApproval, Model: "gpt-5", Steps: 4, Drift: 0.45, Parent: "a", Conflicts: 1},
		{ID: "c", Name: "refactor", Status: views.StatusFailed, Model: "qwen3", Steps: 40, Drift: 0.81},
	}
}
