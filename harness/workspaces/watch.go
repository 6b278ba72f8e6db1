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

// sharedWatch is one watcher process following a directory for every session working there:
// a session's sandbox lives as long as the daemon, and one watcher each kept a process of about
// 20 MiB and an inotify watch per folder for every session ever opened on the project (five
// sessions of one project: five processes watching the same tree).
type sharedWatch struct {
	cancel context.CancelFunc
	// sessions are the changes' recipients by subscription (under Workspaces.watchMu).
	sessions map[uint64]func()
	next     uint64
}

// Watch follows a session's workspace with fsnotify, in a process of its own (a hostile
// workspace can crash fsnotify; see sandbox.Watch) shared by every session of that directory.
// Changes made while the session is not working (no turn, no command: an editor, another
// process, a sibling sharing the directory) are recorded as an external workspace.snapshot, so
// that rewinds and forks bring them back and governance can tell them apart from the session's
// own changes. It is the runtime room's Hooks.Watch: rt is the session's sandbox, just started;
// the function it returns ends the session's part, and the watcher with the last one.
func (wk *Workspaces) Watch(rt *runtimes.Runtime) (context.CancelFunc, error) {
	dir := rt.Workspace
	wk.watchMu.Lock()
	defer wk.watchMu.Unlock()
	w := wk.watches[dir]
	if w == nil {
		ctx, cancel := context.WithCancel(context.Background())
		ch, err := sandbox.Watch(ctx, dir, sandbox.WatchOptions{
			Debounce: watchDebounce, Private: wk.opts.Private, Helper: wk.opts.Helper,
			OnRestart: func(err error) {
				wk.logger().Warn("workspace watcher restarted: changes made meanwhile are found by a full look at the workspace",
					"workspace", dir, "error", err)
			},
		})
		if err != nil {
			cancel()
			return nil, err
		}
		w = &sharedWatch{cancel: cancel, sessions: map[uint64]func(){}}
		if wk.watches == nil {
			wk.watches = map[string]*sharedWatch{}
		}
		wk.watches[dir] = w
		go wk.deliver(w, ch)
	}
	w.next++
	id := w.next
	sessionID := rt.Session
	w.sessions[id] = func() { wk.externalChanges(sessionID, rt) }
	return func() { wk.unwatch(dir, w, id) }, nil
}

// unwatch ends one session's part in a watch, and the watcher when it was the last.
func (wk *Workspaces) unwatch(dir string, w *sharedWatch, id uint64) {
	wk.watchMu.Lock()
	defer wk.watchMu.Unlock()
	if _, ok := w.sessions[id]; !ok {
		return
	}
	delete(w.sessions, id)
	if len(w.sessions) == 0 {
		w.cancel()
		if wk.watches[dir] == w {
			delete(wk.watches, dir)
		}
	}
}

// deliver hands each batch of changes to the watch's sessions, one after the other, each as
// background work, so that closing waits for a snapshot under way (a git killed with the daemon
// would leave the shadow repository's index locked). A session that stopped watching meanwhile
// is passed over.
func (wk *Workspaces) deliver(w *sharedWatch, ch <-chan sandbox.Changes) {
	for range ch {
		wk.watchMu.Lock()
		ids := make([]uint64, 0, len(w.sessions))
		for id := range w.sessions {
			ids = append(ids, id)
		}
		wk.watchMu.Unlock()
		for _, id := range ids {
			wk.watchMu.Lock()
			fn := w.sessions[id]
			wk.watchMu.Unlock()
			if fn == nil {
				continue
			}
			done := make(chan struct{})
			if !wk.goBackground(func() { defer close(done); fn() }) {
				break // stopping: the next start's first look finds these changes
			}
			<-done
		}
	}
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
