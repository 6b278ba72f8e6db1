package workspaces

import (
	"log/slog"
	"sync"

	"exo/harness/eventlog"
	"exo/harness/runtimes"
	"exo/harness/sealed"
	"exo/harness/sessions"
	"exo/store"
)

// Workspaces is the workspaces service: a session's files and their history. It snapshots a
// workspace into events and puts it back (rewind, revert), follows it for outside edits, runs
// commands in it, gives a fork its own working copy, and removes what exo made for a session
// that is gone.
type Workspaces struct {
	log  *eventlog.Log
	st   *store.Store
	dir  *sessions.Directory
	sec  *sealed.Secrets
	rt   *runtimes.Runtimes
	opts Options

	mu   sync.Mutex
	hook SnapshotHook

	// background is the work started for a client that no call waits for (a session's first
	// snapshot while the user types); bgClosed (under bgMu) refuses more once StopBackground ran.
	background sync.WaitGroup
	bgMu       sync.Mutex
	bgClosed   bool

	// watches are the live workspace watchers by directory (watchKey), each shared by the
	// sessions working there (see watch.go); watchMu guards the map and each watch's sessions.
	watchMu sync.Mutex
	watches map[string]*sharedWatch
}

// Options are the harness's settings the workspaces use.
type Options struct {
	// Home is EXO_HOME.
	Home string
	// Private are exo's own folders (the home first): never snapshotted, watched or cloned.
	Private []string
	// Helper is the argv prefix that runs the sandbox's confinement helper.
	Helper []string
	// Logger receives warnings (default: discarded).
	Logger *slog.Logger
}

// New returns the workspaces of the sessions in dir, recorded in log, whose sandboxes are rt's.
func New(log *eventlog.Log, dir *sessions.Directory, sec *sealed.Secrets, rt *runtimes.Runtimes, opts Options) *Workspaces {
	return &Workspaces{log: log, st: log.Store(), dir: dir, sec: sec, rt: rt, opts: opts}
}

// logger returns the workspaces' logger.
func (wk *Workspaces) logger() *slog.Logger {
	if wk.opts.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return wk.opts.Logger
}

// goBackground runs fn in the background unless the workspaces are stopping (it reports
// whether it started it); StopBackground waits for it.
func (wk *Workspaces) goBackground(fn func()) bool {
	wk.bgMu.Lock()
	defer wk.bgMu.Unlock()
	if wk.bgClosed {
		return false
	}
	wk.background.Go(fn)
	return true
}

// StopBackground starts no more background work and waits for what runs (a session's first
// snapshot the user's typing started): the harness calls it first when it closes, so nothing
// writes into EXO_HOME after.
func (wk *Workspaces) StopBackground() {
	wk.bgMu.Lock()
	wk.bgClosed = true
	wk.bgMu.Unlock()
	wk.background.Wait()
}
