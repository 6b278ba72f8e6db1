package workspaces

import (
	"exo/harness/api"
	"exo/harness/eventlog"
	"exo/harness/runtimes"
	"exo/sandbox"
)

// watchDownSummary is what a session is told when its workspace watcher is not running.
const watchDownSummary = "the workspace watcher is not running and exo keeps trying to start it: meanwhile edits made outside a turn are recorded at the session's next snapshot"

// deliver hands each batch of changes to the watch's sessions (round) until the watcher's
// channel closes. Batches that came meanwhile are taken as one (each session snapshots the
// whole workspace anyway): a watcher flooding its output costs a snapshot per round, not one
// per line.
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
		wk.watchUp(w) // a batch came: the watcher runs
		wk.round(w)
	}
}

// round lets each session of a watch look at the workspace, one after the other, each as
// background work, so that closing waits for a snapshot under way (a git killed with the daemon
// would leave the shadow repository's index locked). A session that left meanwhile is passed
// over.
func (wk *Workspaces) round(w *sharedWatch) {
	for _, id := range wk.recipients(w) {
		r := wk.recipient(w, id)
		if r == nil {
			continue
		}
		done := make(chan struct{})
		if !wk.goBackground(func() { defer close(done); r.changed() }) {
			return // stopping: the next start's first look finds these changes
		}
		<-done
	}
}

// recipients lists a watch's sessions now.
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

// watchUp notes that a watch's process runs (again).
func (wk *Workspaces) watchUp(w *sharedWatch) {
	wk.watchMu.Lock()
	w.down, w.downErr = false, nil
	for _, r := range w.sessions {
		r.warned = false
	}
	wk.watchMu.Unlock()
}

// watchDown tells each session of a watch, once per outage, that its watcher is not running
// (it could not start, or ended and could not restart) and why: edits made from outside go
// unseen until it is back (it is tried again with back-off), though the session's next
// snapshot still finds them.
func (wk *Workspaces) watchDown(w *sharedWatch, err error) {
	if w.ctx.Err() != nil {
		return // the last session left
	}
	wk.logger().Warn("workspace watcher is not running", "workspace", w.dir, "error", err)
	wk.watchMu.Lock()
	if w.down {
		wk.watchMu.Unlock()
		return
	}
	w.down, w.downErr = true, err
	var ids []string
	for _, r := range w.sessions {
		if !r.warned {
			r.warned = true
			ids = append(ids, r.session)
		}
	}
	wk.watchMu.Unlock()
	wk.warnWatch(ids, watchDownSummary, err)
}

// warnWatch records in each session's log that its workspace watcher is not running, and why.
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
