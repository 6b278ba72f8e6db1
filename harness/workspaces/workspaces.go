package workspaces

import (
	"log/slog"
	"sync"

	"exo/harness/eventlog"
	"exo/harness/sealed"
	"exo/harness/sessions"
	"exo/sandbox"
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
	rt   Runtimes
	opts Options

	mu   sync.Mutex
	hook SnapshotHook

	// background is the work started for a client that no call waits for (a session's first
	// snapshot while the user types); bgClosed (under bgMu) refuses more once StopBackground ran.
	background sync.WaitGroup
	bgMu       sync.Mutex
	bgClosed   bool
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

// Sandbox is the part of a session's live sandbox the workspaces use. The runtime room (the
// harness's sandboxes) owns it and builds this view of it.
type Sandbox struct {
	// Workspace is the folder the sandbox confines commands to.
	Workspace string
	// Shell is the session's persistent shell.
	Shell *sandbox.Shell
	// Snaps is the snapshotter of the workspace.
	Snaps *sandbox.Snapshotter
	// Run is held while a foreground command runs: one per session.
	Run *sync.Mutex
	// Baseline serialises taking the first snapshot.
	Baseline *sync.Mutex
}

// Runtimes is what the workspaces need of the runtime room, which sits above them: given at
// construction.
type Runtimes interface {
	// Sandbox returns (starting lazily) a session's live sandbox.
	Sandbox(sessionID string) (Sandbox, error)
	// CloseSandbox stops a session's live sandbox, if it has one.
	CloseSandbox(sessionID string)
	// Capabilities is what isolation this machine enforces.
	Capabilities() sandbox.Capabilities
}

// New returns the workspaces of the sessions in dir, recorded in log.
func New(log *eventlog.Log, dir *sessions.Directory, sec *sealed.Secrets, rt Runtimes, opts Options) *Workspaces {
	return &Workspaces{log: log, st: log.Store(), dir: dir, sec: sec, rt: rt, opts: opts}
}

// logger returns the workspaces' logger.
func (wk *Workspaces) logger() *slog.Logger {
	if wk.opts.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return wk.opts.Logger
}

// goBackground runs fn in the background unless the workspaces are stopping; StopBackground
// waits for it.
func (wk *Workspaces) goBackground(fn func()) {
	wk.bgMu.Lock()
	defer wk.bgMu.Unlock()
	if wk.bgClosed {
		return
	}
	wk.background.Go(fn)
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
