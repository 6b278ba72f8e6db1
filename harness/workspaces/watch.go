package workspaces

import (
	"context"
	"time"

	"exo/harness/api"
	"exo/harness/runtimes"
	"exo/sandbox"
)

// watchDebounce is how long the workspace watcher lets changes settle before it reports them.
const watchDebounce = 400 * time.Millisecond

// Watch follows a session's workspace with fsnotify, in a process of its own (a hostile
// workspace can crash fsnotify; see sandbox.Watch). Changes made while the session is
// not working (no turn, no command: an editor, another process, a sibling sharing the directory)
// are recorded as an external workspace.snapshot, so that rewinds and forks bring them back and
// governance can tell them apart from the session's own changes.
// It is the runtime room's Hooks.Watch: rt is the session's sandbox, just started.
func (wk *Workspaces) Watch(rt *runtimes.Runtime) (context.CancelFunc, error) {
	sessionID := rt.Session
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := sandbox.Watch(ctx, rt.Workspace, sandbox.WatchOptions{
		Debounce: watchDebounce, Private: wk.opts.Private, Helper: wk.opts.Helper,
		OnRestart: func(err error) {
			wk.logger().Warn("workspace watcher restarted: changes made meanwhile are found by a full look at the workspace",
				"session", sessionID, "error", err)
		},
	})
	if err != nil {
		cancel()
		return nil, err
	}
	go func() {
		for range ch {
			// As background work, so that closing waits for a snapshot under way (a git
			// killed with the daemon would leave the shadow repository's index locked).
			done := make(chan struct{})
			if !wk.goBackground(func() { defer close(done); wk.externalChanges(sessionID, rt) }) {
				continue // stopping: the next start's first look finds these changes
			}
			<-done
		}
	}()
	return cancel, nil
}

// externalChanges snapshots a session's workspace when it changed while the session was idle.
func (wk *Workspaces) externalChanges(sessionID string, rt *runtimes.Runtime) {
	st, err := wk.log.State(sessionID)
	if err != nil || st.Snapshots == 0 {
		return // no baseline yet: the first snapshot will include these files
	}
	switch st.Status {
	case api.StatusRunning, api.StatusPending, api.StatusWaiting:
		return // the session is working: its own snapshot after the tool records the change
	}
	if !rt.Run.TryLock() {
		return // a command is running (exo exec, !cmd): its snapshot records the change
	}
	defer rt.Run.Unlock()
	_, _ = wk.snapshot(sessionID, "", "", false, true, 0)
}
