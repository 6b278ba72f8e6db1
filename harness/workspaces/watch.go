package workspaces

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"time"

	"exo/harness/runtimes"
	"exo/sandbox"
)

// watchDebounce is how long the workspace watcher lets changes settle before it reports them.
const watchDebounce = 400 * time.Millisecond

// A watcher that cannot start (too many folders for the inotify watches the user may have, a
// helper that fails) is tried again after watchRetryMin, doubling up to watchRetryMax: each try
// walks the whole tree again.
const (
	watchRetryMin = time.Second
	watchRetryMax = time.Minute
)

// sharedWatch is one watcher process following a directory for every session working there:
// a session's sandbox lives as long as the daemon, and one watcher each kept a process of about
// 20 MiB and an inotify watch per folder for every session ever opened on the project (five
// sessions of one project: five processes watching the same tree).
type sharedWatch struct {
	// key names the directory in Workspaces.watches, and dir is the path watched (watchKey).
	key, dir string
	// ctx ends with the last session's part (unwatch), and the watcher with it.
	ctx    context.Context
	cancel context.CancelFunc
	// done is closed once the watch ended: its deliveries, or its tries to start.
	done chan struct{}
	// sessions are the changes' recipients by subscription (under Workspaces.watchMu).
	sessions map[uint64]*watching
	next     uint64
	// down is set (under Workspaces.watchMu) while the watcher is not running, from the first
	// failed start until the next batch: each session is told once of an outage, not at each try.
	down bool
	// downErr (under Workspaces.watchMu) is why, told to a session joining meanwhile.
	downErr error
}

// watching is one session's part in a shared watch.
type watching struct {
	session string
	rt      *runtimes.Runtime
	// warned (under Workspaces.watchMu) is set once the session was told of the outage.
	warned bool
}

// watchKey names a workspace's directory, and dir is its canonical path: one directory
// reached by a symlink, a trailing slash, a ".." or a bind mount has one key (its device and
// inode), so all its sessions share one watcher, which watches the real folder of the first of
// them (never more than it: a workspace path that is a symlink leads to its target, and
// nothing beside).
func watchKey(workspace string) (key, dir string, err error) {
	abs, err := filepath.Abs(workspace)
	if err == nil {
		dir, err = filepath.EvalSymlinks(abs)
	}
	var st syscall.Stat_t
	if err == nil {
		err = syscall.Stat(dir, &st)
	}
	if err != nil {
		return "", "", fmt.Errorf("watch %s: %w", workspace, err)
	}
	return fmt.Sprintf("%d:%d", st.Dev, st.Ino), filepath.Clean(dir), nil
}

// Watch follows a session's workspace with fsnotify, in a process of its own (a hostile
// workspace can crash fsnotify; see sandbox.Watch) shared by every session of that directory.
// Changes made while the session is not working (no turn, no command: an editor, another
// process, a sibling sharing the directory) are recorded as an external workspace.snapshot, so
// that rewinds and forks bring them back and governance can tell them apart from the session's
// own changes. It is the runtime room's Hooks.Watch: rt is the session's sandbox, just started;
// the function it returns ends the session's part, and the watcher with the last one.
//
// Watch does not wait for the process to start (its first walk of a large tree takes seconds,
// or hangs on a hung mount): it is started in the background, without holding watchMu, so that
// no session of this or another directory, starting or leaving, waits for it; a session that
// leaves meanwhile ends the start with the watch. Once it runs, each session looks at the
// workspace, for edits made while it started. A watcher that cannot start is told in each
// session's log and tried again in the background.
func (wk *Workspaces) Watch(rt *runtimes.Runtime) (context.CancelFunc, error) {
	key, dir, err := watchKey(rt.Workspace)
	if err != nil {
		return nil, err
	}
	wk.watchMu.Lock()
	w := wk.watches[key]
	first := w == nil
	if first {
		w = &sharedWatch{key: key, dir: dir, done: make(chan struct{}), sessions: map[uint64]*watching{}}
		w.ctx, w.cancel = context.WithCancel(context.Background())
		if wk.watches == nil {
			wk.watches = map[string]*sharedWatch{}
		}
		wk.watches[key] = w
	}
	w.next++
	id := w.next
	r := &watching{session: rt.Session, rt: rt}
	w.sessions[id] = r
	tell, why := w.down, w.downErr // joined a directory whose watcher is not running
	r.warned = tell
	wk.watchMu.Unlock()
	if first {
		go wk.startWatch(w)
	}
	if tell {
		wk.warnWatch([]string{rt.Session}, watchDownSummary, why)
	}
	return func() { wk.unwatch(w, id) }, nil
}

// startWatch starts a shared watch's process and delivers its changes; if it cannot start,
// it tells the sessions and tries again with back-off (retryWatch). It returns once the
// watch ended: its last session left.
func (wk *Workspaces) startWatch(w *sharedWatch) {
	ch, err := wk.startProcess(w)
	switch {
	case err == nil:
		wk.deliver(w, ch, wk.round(w)) // first, what changed while it started
	case w.ctx.Err() != nil: // its sessions left while it started
		close(w.done)
	default:
		wk.watchDown(w, err)
		wk.retryWatch(w)
	}
}

// startProcess starts the watcher's process for w.
func (wk *Workspaces) startProcess(w *sharedWatch) (<-chan sandbox.Changes, error) {
	return sandbox.Watch(w.ctx, w.dir, sandbox.WatchOptions{
		Debounce: watchDebounce, Private: wk.opts.Private, Helper: wk.opts.Helper,
		OnRestart: func(err error) {
			wk.logger().Warn("workspace watcher restarted: changes made meanwhile are found by a full look at the workspace",
				"workspace", w.dir, "error", err)
		},
		OnStartFailed: func(err error) { wk.watchDown(w, err) },
	})
}

// retryWatch tries again, with back-off, to start a watch whose process could not start, until
// it starts (its sessions then look at the workspace: it changed unseen) or its last session left.
func (wk *Workspaces) retryWatch(w *sharedWatch) {
	for wait := watchRetryMin; ; wait = min(2*wait, watchRetryMax) {
		select {
		case <-w.ctx.Done():
			close(w.done)
			return
		case <-time.After(wait):
		}
		ch, err := wk.startProcess(w)
		if err == nil {
			wk.watchUp(w)
			wk.deliver(w, ch, wk.round(w))
			return
		}
		if w.ctx.Err() == nil {
			wk.logger().Warn("workspace watcher could not start", "workspace", w.dir, "error", err)
		}
	}
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
		if wk.watches[w.key] == w {
			delete(wk.watches, w.key)
		}
	}
}
