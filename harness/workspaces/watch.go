package workspaces

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"exo/harness/api"
	"exo/harness/eventlog"
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
	// dir is the directory's canonical path (watchKey), the key in Workspaces.watches.
	dir    string
	ctx    context.Context
	cancel context.CancelFunc
	// started is closed once the process started, or failed to (err, set before).
	started chan struct{}
	err     error
	// done is closed once deliver returned (the watcher's channel closed).
	done chan struct{}
	// sessions are the changes' recipients by subscription (under Workspaces.watchMu).
	sessions map[uint64]*watching
	next     uint64
	// down is set (under Workspaces.watchMu) once the sessions were told a restart failed, and
	// cleared by the next batch: an outage is told once, not at every retry.
	down bool
}

// watching is one session's part in a shared watch.
type watching struct {
	session string
	changed func()
}

// watchKey is the canonical path of a workspace: the one directory reached by a symlink, a
// trailing slash or a "..", all followed by one watcher, which watches the real folder (never
// more than it: a workspace path that is a symlink leads to its target, and nothing beside).
func watchKey(workspace string) (string, error) {
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return "", fmt.Errorf("watch %s: %w", workspace, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("watch %s: %w", workspace, err)
	}
	return filepath.Clean(real), nil
}

// Watch follows a session's workspace with fsnotify, in a process of its own (a hostile
// workspace can crash fsnotify; see sandbox.Watch) shared by every session of that directory.
// Changes made while the session is not working (no turn, no command: an editor, another
// process, a sibling sharing the directory) are recorded as an external workspace.snapshot, so
// that rewinds and forks bring them back and governance can tell them apart from the session's
// own changes. It is the runtime room's Hooks.Watch: rt is the session's sandbox, just started;
// the function it returns ends the session's part, and the watcher with the last one.
//
// The first session of a directory starts the process without holding watchMu (its first walk
// of a large tree takes seconds): the other sessions of the directory wait for that start, and
// those of other directories, and every session leaving, go on meanwhile.
func (wk *Workspaces) Watch(rt *runtimes.Runtime) (context.CancelFunc, error) {
	dir, err := watchKey(rt.Workspace)
	if err != nil {
		return nil, err
	}
	wk.watchMu.Lock()
	w := wk.watches[dir]
	first := w == nil
	if first {
		w = &sharedWatch{dir: dir, started: make(chan struct{}), done: make(chan struct{}), sessions: map[uint64]*watching{}}
		w.ctx, w.cancel = context.WithCancel(context.Background())
		if wk.watches == nil {
			wk.watches = map[string]*sharedWatch{}
		}
		wk.watches[dir] = w
	}
	w.next++
	id := w.next
	w.sessions[id] = &watching{session: rt.Session, changed: func() { wk.externalChanges(rt) }}
	wk.watchMu.Unlock()
	if first {
		wk.startWatch(w)
	} else {
		<-w.started
	}
	if w.err != nil {
		wk.unwatch(w, id)
		wk.warnWatch([]string{rt.Session}, "the workspace watcher could not start: edits made outside a turn are recorded at the session's next snapshot", w.err)
		return nil, w.err
	}
	return func() { wk.unwatch(w, id) }, nil
}

// startWatch starts a shared watch's process, or forgets the watch if it cannot start (the
// next session of the directory tries again).
func (wk *Workspaces) startWatch(w *sharedWatch) {
	defer close(w.started)
	ch, err := sandbox.Watch(w.ctx, w.dir, sandbox.WatchOptions{
		Debounce: watchDebounce, Private: wk.opts.Private, Helper: wk.opts.Helper,
		OnRestart: func(err error) {
			wk.logger().Warn("workspace watcher restarted: changes made meanwhile are found by a full look at the workspace",
				"workspace", w.dir, "error", err)
		},
		OnStartFailed: func(err error) { wk.watchDown(w, err) },
	})
	if err != nil {
		w.err = err
		wk.watchMu.Lock()
		if wk.watches[w.dir] == w {
			delete(wk.watches, w.dir)
		}
		wk.watchMu.Unlock()
		w.cancel()
		close(w.done)
		wk.logger().Warn("workspace watcher could not start", "workspace", w.dir, "error", err)
		return
	}
	go wk.deliver(w, ch)
}

// unwatch ends one session's part in a watch, and the watcher when it was the last.
func (wk *Workspaces) unwatch(w *sharedWatch, id uint64) {
	wk.watchMu.Lock()
	defer wk.watchMu.Unlock()
	if _, ok := w.sessions[id]; !ok {
		return
	}
	delete(w.sessions, id)
	if len(w.sessions) == 0 {
		w.cancel()
		if wk.watches[w.dir] == w {
			delete(wk.watches, w.dir)
		}
	}
}

// recipients lists a watch's sessions now (those that leave meanwhile are passed over).
func (wk *Workspaces) recipients(w *sharedWatch) []uint64 {
	wk.watchMu.Lock()
	defer wk.watchMu.Unlock()
	ids := make([]uint64, 0, len(w.sessions))
	for id := range w.sessions {
		ids = append(ids, id)
	}
	return ids
}

// recipient returns a session's part in a watch, nil once it left.
func (wk *Workspaces) recipient(w *sharedWatch, id uint64) *watching {
	wk.watchMu.Lock()
	defer wk.watchMu.Unlock()
	return w.sessions[id]
}

// deliver hands each batch of changes to the watch's sessions, one after the other, each as
// background work, so that closing waits for a snapshot under way (a git killed with the daemon
// would leave the shadow repository's index locked). Batches that came meanwhile are taken as
// one (each session snapshots the whole workspace anyway): a watcher flooding its output costs
// a snapshot per round, not one per line.
func (wk *Workspaces) deliver(w *sharedWatch, ch <-chan sandbox.Changes) {
	defer close(w.done)
	for open := true; open; {
		if _, open = <-ch; !open {
			return
		}
		for drained := false; !drained && open; {
			select {
			case _, open = <-ch:
			default:
				drained = true
			}
		}
		wk.watchMu.Lock()
		w.down = false // a batch came: the watcher is up
		wk.watchMu.Unlock()
		for _, id := range wk.recipients(w) {
			r := wk.recipient(w, id)
			if r == nil {
				continue
			}
			done := make(chan struct{})
			if !wk.goBackground(func() { defer close(done); r.changed() }) {
				break // stopping: the next start's first look finds these changes
			}
			<-done
		}
	}
}

// watchDown tells each session of a watch, once per outage, that its watcher ended and could
// not be started again: edits made from outside go unseen until it is back (it is retried with
// back-off), though the session's next snapshot still finds them.
func (wk *Workspaces) watchDown(w *sharedWatch, err error) {
	wk.logger().Warn("workspace watcher could not restart", "workspace", w.dir, "error", err)
	wk.watchMu.Lock()
	if w.down {
		wk.watchMu.Unlock()
		return
	}
	w.down = true
	var ids []string
	for _, r := range w.sessions {
		ids = append(ids, r.session)
	}
	wk.watchMu.Unlock()
	wk.warnWatch(ids, "the workspace watcher stopped and could not restart: edits made outside a turn are recorded at the session's next snapshot; exo keeps trying", err)
}

// warnWatch records in each session's log that its workspace watcher is not working, and why.
func (wk *Workspaces) warnWatch(ids []string, summary string, err error) {
	p := api.AgentWarning{Executor: "exo", Summary: summary, Details: err.Error()}
	for _, id := range ids {
		if _, aerr := wk.log.AppendOn(id, "", eventlog.MustRecord(api.TypeAgentWarning, api.ActorHarness, p)); aerr != nil {
			wk.logger().Warn("record the workspace watcher's outage", "session", id, "error", aerr)
		}
	}
}

// externalChanges snapshots a session's workspace when it changed while the session was idle.
// It takes the snapshot in rt, the sandbox the session watched from: a sandbox closed
// meanwhile refuses it, rather than one being started again for a session that left.
func (wk *Workspaces) externalChanges(rt *runtimes.Runtime) {
	st, err := wk.log.State(rt.Session)
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
	_, _ = wk.snapshotIn(rt, rt.Session, "", "", false, true, 0)
}
