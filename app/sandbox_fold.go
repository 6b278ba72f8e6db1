package app

import (
	"time"

	"exo/harness/api"
	"exo/views"
)

// sandboxFromLog makes a sandbox pane that shows a command running follow the session's
// projection when it says otherwise: the command ended while the app was not watching (its
// daemon was killed and the next one recorded it as interrupted, or it finished during a
// reconnection), so the pane shows how it ended instead of spinning for good.
func sandboxFromLog(sb *views.Sandbox, st *api.SessionState) {
	cur := sb.Status()
	if !cur.Running || st == nil {
		return
	}
	if next, ok := sandboxStatusOf(st, cur); ok {
		sb.SetStatus(next)
	}
}

// sandboxStatusOf is the status the newest bash call of a projection gives a pane showing cur
// running; ok is false when the projection has none or that call still runs.
func sandboxStatusOf(st *api.SessionState, cur views.SandboxStatus) (views.SandboxStatus, bool) {
	for i := len(st.Items) - 1; i >= 0; i-- {
		it := st.Items[i]
		if it.Kind != api.ItemTool || it.Tool != "bash" {
			continue
		}
		if it.Status == "running" {
			return cur, false
		}
		next := views.SandboxStatus{Command: cur.Command, Duration: time.Duration(it.DurationMs) * time.Millisecond,
			NoExitCode: it.ExitCode == nil, Interrupted: it.Status == "interrupted"}
		if next.Command == "" {
			next.Command = it.Args
		}
		if it.ExitCode != nil {
			next.ExitCode = *it.ExitCode
		}
		return next, true
	}
	if len(st.OpenCalls) == 0 && st.Status != api.StatusRunning {
		// the call is older than the projection's items and nothing runs: it ended
		return views.SandboxStatus{Command: cur.Command, NoExitCode: true}, true
	}
	return cur, false
}
