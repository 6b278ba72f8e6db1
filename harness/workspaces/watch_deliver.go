package workspaces

import (
	"time"

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
// per line. A round put off because a session of the directory is working is tried again
// after watchDebounce, or with the next batch.
func (wk *Workspaces) deliver(w *sharedWatch, ch <-chan sandbox.Changes, deferred bool) {
	defer close(w.done)
	for {
		var retry <-chan time.Time
		if deferred {
			retry = time.After(watchDebounce)
		}
		select {
		case _, open := <-ch:
			if !open {
				return
			}
			for drained := false; !drained; {
				select {
				case _, open = <-ch:
					if !open {
						return
					}
				default:
					drained = true
				}
			}
			wk.watchUp(w) // a batch came: the watcher runs
		case <-retry:
		}
		deferred = wk.round(w)
	}
}

// round lets each session of a watch look at the workspace, one after the other, each as
// background work, so that closing waits for a snapshot under way (a git killed with the daemon
// would leave the shadow repository's index locked). A session that left meanwhile is passed
// over. It reports whether a look was put off (see externalChanges).
func (wk *Workspaces) round(w *sharedWatch) (deferred bool) {
	for _, id := range wk.recipients(w) {
		r := wk.recipient(w, id)
		if r == nil {
			continue
		}
		done := make(chan struct{})
		if !wk.goBackground(func() {
			defer close(done)
			if wk.externalChanges(w, r) {
				deferred = true
			}
		}) {
			return false // stopping: the next start's first look finds these changes
		}
		<-done
	}
	return deferred
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

// externalChanges snapshots a session's workspace when it changed while no session of the
// directory was working, and reports whether it put that off because one was. The sessions
// share a shadow repository: a snapshot taken for an idle session while another's turn or
// command writes files would take those files first, and the working session would find them
// recorded already, not among its own changes (its scope and drift would miss them). So the
// look waits until every session of the directory is idle; then the working session's own
// snapshot has recorded its changes, and this one records them as external.
//
// It takes the snapshot in the sandbox the session watched from: a sandbox closed meanwhile
// refuses it, rather than one being started again for a session that left.
func (wk *Workspaces) externalChanges(w *sharedWatch, r *watching) (deferred bool) {
	if st, err := wk.log.State(r.session); err != nil || st.Snapshots == 0 {
		return false // no baseline yet: the first snapshot will include these files
	}
	var held []*runtimes.Runtime
	defer func() {
		for _, rt := range held {
			rt.Run.Unlock()
		}
	}()
	for _, o := range wk.siblings(w, r) {
		if st, err := wk.log.State(o.session); err == nil {
			switch st.Status {
			case api.StatusRunning, api.StatusPending, api.StatusWaiting:
				return true // a turn is under way: its own snapshot after the tool records the change
			}
		}
		if !o.rt.Run.TryLock() {
			return true // a command is running (exo exec, !cmd): its snapshot records the change
		}
		held = append(held, o.rt)
	}
	_, _ = wk.snapshotIn(r.rt, r.session, "", "", false, true, 0)
	return false
}

// siblings lists the sessions of a watch, r first, each sandbox once.
func (wk *Workspaces) siblings(w *sharedWatch, r *watching) []*watching {
	wk.watchMu.Lock()
	defer wk.watchMu.Unlock()
	out := []*watching{r}
	for _, o := range w.sessions {
		if o.rt != r.rt {
			out = append(out, o)
		}
	}
	return out
}
