package harness

import (
	"context"
	"time"

	"exo/sandbox"
)

// watchDebounce is how long the workspace watcher lets changes settle before it reports them.
const watchDebounce = 400 * time.Millisecond

// watchWorkspace follows a session's workspace with fsnotify, in a process of its own (a hostile
// workspace can crash fsnotify; see sandbox.Watch). Changes made while the session is
// not working (no turn, no command: an editor, another process, a sibling sharing the directory)
// are recorded as an external workspace.snapshot, so that rewinds and forks bring them back and
// governance can tell them apart from the session's own changes.
func (h *Harness) watchWorkspace(sessionID string, rt *Runtime) (context.CancelFunc, error) {
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := sandbox.Watch(ctx, rt.Workspace, sandbox.WatchOptions{
		Debounce: watchDebounce, Private: h.PrivateDirs(), Helper: h.opts.SandboxHelper,
		OnRestart: func(err error) {
			h.log().Warn("workspace watcher restarted: changes made meanwhile are found by a full look at the workspace",
				"session", sessionID, "error", err)
		},
	})
	if err != nil {
		cancel()
		return nil, err
	}
	go func() {
		for range ch {
			h.externalChanges(sessionID, rt)
		}
	}()
	return cancel, nil
}

// externalChanges snapshots a session's workspace when it changed while the session was idle.
func (h *Harness) externalChanges(sessionID string, rt *Runtime) {
	st, err := h.State(sessionID)
	if err != nil || st.Snapshots == 0 {
		return // no baseline yet: the first snapshot will include these files
	}
	switch st.Status {
	case StatusRunning, StatusPending, StatusWaiting:
		return // the session is working: its own snapshot after the tool records the change
	}
	if !rt.runMu.TryLock() {
		return // a command is running (exo exec, !cmd): its snapshot records the change
	}
	defer rt.runMu.Unlock()
	_, _ = h.snapshot(sessionID, "", "", false, true, 0)
}
