package mcp

import (
	"sync"

	"exo/harness"
	"exo/harness/api"
)

// managers maps a harness to its live manager, so the app can show servers' state without
// holding the manager itself.
var managers sync.Map // *harness.Harness → *Manager

// register makes m the harness's live manager.
func (m *Manager) register() { managers.Store(m.h, m) }

// unregister forgets m.
func (m *Manager) unregister() { managers.CompareAndDelete(m.h, m) }

// Summary is a short status of a workspace's servers in the harness's live manager, for the
// app's status bar: "mcp 2/3" (running of configured), with the failed ones named; "" when none
// is configured or nothing runs in this process. It starts nothing.
func Summary(h *harness.Harness, workspace string) (text string, failing bool) {
	v, ok := managers.Load(h)
	if !ok {
		return "", false
	}
	return SummaryOf(v.(*Manager).Status(workspace))
}

// SummaryOf renders server statuses for the status bar (api.MCPSummary, where clients find it).
func SummaryOf(st []Status, err error) (text string, failing bool) { return api.MCPSummary(st, err) }
