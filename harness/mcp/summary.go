package mcp

import (
	"fmt"
	"sync"

	"exo/harness"
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

// SummaryOf renders server statuses for the status bar ("mcp 2/3 (name crashed)"), "" when none
// is enabled; failing is set when one failed, crashed, hung or is not trusted.
func SummaryOf(st []Status, err error) (text string, failing bool) {
	if err != nil {
		return "mcp: " + err.Error(), true
	}
	enabled, up := 0, 0
	var bad []string
	for _, s := range st {
		if s.Disabled {
			continue
		}
		enabled++
		switch s.State {
		case harness.MCPConnected:
			up++
		case harness.MCPFailed, harness.MCPCrashed, harness.MCPHung:
			bad = append(bad, s.Name+" "+s.State)
		case StateUntrusted:
			bad = append(bad, s.Name+" untrusted: exo trust")
		}
	}
	if enabled == 0 {
		return "", false
	}
	text = fmt.Sprintf("mcp %d/%d", up, enabled)
	if len(bad) > 0 {
		text += " (" + bad[0]
		if len(bad) > 1 {
			text += fmt.Sprintf(" +%d", len(bad)-1)
		}
		text += ")"
	}
	return text, len(bad) > 0
}
