package runtimes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"exo/harness/api"
	"exo/harness/eventlog"
	"exo/harness/sealed"
	"exo/harness/sessions"
	"exo/sandbox"
	"exo/store"
)

// Runtime is a session's live sandbox: its persistent shell and its workspace snapshots.
// The runtime room owns it; the workspaces run commands in it and snapshot its workspace.
type Runtime struct {
	Session   string
	Workspace string
	Shell     *sandbox.Shell
	Snaps     *sandbox.Snapshotter
	Tasks     *sandbox.TaskManager

	// Run is held while a foreground command runs or the files are restored: one per session.
	Run sync.Mutex
	// Baseline serialises taking the first snapshot, so PrepareBaseline and a tool never race.
	Baseline sync.Mutex
	// stopWatch ends the workspace watcher.
	stopWatch context.CancelFunc
}

// Runtimes is the runtime room: the sessions' live sandboxes (started lazily, one per session),
// what their commands leave running, background tasks in a sandbox and detached tasks in a
// process of their own, and the artifacts their output is kept in.
type Runtimes struct {
	log  *eventlog.Log
	st   *store.Store
	dir  *sessions.Directory
	sec  *sealed.Secrets
	opts Options

	mu      sync.Mutex
	m       map[string]*Runtime
	closing bool
	caps    sandbox.Capabilities
	once    sync.Once
}

// Options are the harness's settings the runtime room uses.
type Options struct {
	// Home is EXO_HOME.
	Home string
	// Private are exo's own folders (the home first): never snapshotted, watched or cloned.
	Private []string
	// ConfigFile is the user's configuration file, whose [sandbox] caps the sandboxes take
	// ("" reads none).
	ConfigFile string
	// Helper is the argv prefix that runs the sandbox's confinement helper (nil: this
	// executable).
	Helper []string
	// Capabilities, when set, stand in for the probe of what isolation this machine supports.
	Capabilities *sandbox.Capabilities
	// Hooks are what the room calls in the room above it, the workspaces.
	Hooks Hooks
}

// Hooks are what the runtime room needs of the workspaces, which sit above it: the harness
// wires them at construction. Each may be nil.
type Hooks struct {
	// Watch starts following a new sandbox's workspace for edits made outside a turn and
	// returns what stops it (the workspaces' Watch).
	Watch func(rt *Runtime) (context.CancelFunc, error)
	// Progress is what a session's snapshotter reports its progress to (the workspaces'
	// ProgressReporter).
	Progress func(sessionID string) sandbox.ProgressFunc
	// TaskEnded is called once a background task's end is recorded, to snapshot the files it
	// may have changed (the workspaces' SnapshotWorkspace).
	TaskEnded func(sessionID string)
}

// New returns the runtime room of the sessions in dir, recorded in log.
func New(log *eventlog.Log, dir *sessions.Directory, sec *sealed.Secrets, opts Options) *Runtimes {
	return &Runtimes{log: log, st: log.Store(), dir: dir, sec: sec, opts: opts}
}

// Capabilities probes (once) what isolation this machine enforces.
func (rs *Runtimes) Capabilities() sandbox.Capabilities {
	rs.once.Do(func() {
		if c := rs.opts.Capabilities; c != nil {
			rs.caps = *c
			return
		}
		rs.caps = sandbox.Probe()
	})
	return rs.caps
}

// Runtime returns (starting lazily) the sandbox of a session.
func (rs *Runtimes) Runtime(sessionID string) (*Runtime, error) {
	s, err := rs.dir.Session(sessionID)
	if err != nil {
		return nil, err
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.closing {
		return nil, fmt.Errorf("sandbox of %s: exo is shutting down", s.Name)
	}
	if rs.m == nil {
		rs.m = map[string]*Runtime{}
	}
	if r := rs.m[s.ID]; r != nil && r.Workspace == s.Workspace {
		return r, nil
	}
	r, err := rs.newRuntime(s)
	if err != nil {
		return nil, err
	}
	rs.m[s.ID] = r
	return r, nil
}

// newRuntime builds a session's shell and snapshotter from its settings.
func (rs *Runtimes) newRuntime(s *api.Session) (*Runtime, error) {
	if s.Workspace == "" {
		return nil, fmt.Errorf("session %s has no workspace", s.Name)
	}
	if fi, err := os.Stat(s.Workspace); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("workspace %s of session %s is not a directory (moved or deleted?)", s.Workspace, s.Name)
	}
	limits, err := SandboxLimits(rs.opts.ConfigFile)
	if err != nil {
		return nil, fmt.Errorf("sandbox of %s: %w", s.Name, err)
	}
	cfg := sandbox.Config{
		Limits:    limits,
		Workspace: s.Workspace,
		TmpDir:    filepath.Join(rs.opts.Home, "tmp", s.ID),
		Network:   s.Settings["network"] == "on",
		Fallback:  sandbox.RunUnconfined,
		Artifacts: artifactSink{rs},
		Helper:    rs.opts.Helper,
		Hide:      []string{rs.opts.Home}, // the secret key and the database, whatever path is used
	}
	if s.Settings["isolation"] == "strict" {
		cfg.Fallback = sandbox.Refuse
	}
	sh, err := sandbox.NewShell(cfg, rs.Capabilities())
	if err != nil {
		return nil, fmt.Errorf("sandbox of %s: %w", s.Name, err)
	}
	snaps, err := sandbox.NewSnapshotter(s.Workspace, sandbox.ShadowDir(rs.opts.Home, s.Workspace),
		sandbox.SnapshotOptions{Alternates: Alternates(s), Private: rs.opts.Private})
	if err != nil {
		sh.Close()
		return nil, fmt.Errorf("snapshots of %s: %w", s.Name, err)
	}
	if h := rs.opts.Hooks.Progress; h != nil {
		snaps.OnProgress(h(s.ID))
	}
	tasks, err := sandbox.NewTaskManager(cfg, rs.Capabilities(), func(ti sandbox.TaskInfo) { rs.taskDone(s.ID, ti) })
	if err != nil {
		sh.Close()
		return nil, fmt.Errorf("tasks of %s: %w", s.Name, err)
	}
	rt := &Runtime{Session: s.ID, Workspace: s.Workspace, Shell: sh, Snaps: snaps, Tasks: tasks}
	if h := rs.opts.Hooks.Watch; h != nil {
		if stop, err := h(rt); err == nil {
			rt.stopWatch = stop // without fsnotify, external edits are still caught by the next snapshot
		}
	}
	return rt, nil
}

// Close stops every live shell and refuses to start more.
func (rs *Runtimes) Close() {
	rs.mu.Lock()
	all := rs.m
	rs.m, rs.closing = nil, true
	rs.mu.Unlock()
	for _, r := range all {
		r.close()
	}
}

// close stops a runtime: its watcher, its tasks (waiting for each one's completion to be
// recorded), its shell and its snapshotter (waiting for a background gc of the shadow
// repository).
func (rt *Runtime) close() {
	if rt.stopWatch != nil {
		rt.stopWatch()
	}
	rt.Tasks.Close()
	rt.Shell.Close()
	rt.Snaps.Close()
}

// CloseSandbox stops a session's live sandbox, if it has one.
func (rs *Runtimes) CloseSandbox(sessionID string) {
	rs.mu.Lock()
	rt := rs.m[sessionID]
	delete(rs.m, sessionID)
	rs.mu.Unlock()
	if rt != nil {
		rt.close()
	}
}

// live returns a session's sandbox if it is running (it starts none).
func (rs *Runtimes) live(sessionID string) *Runtime {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.m[sessionID]
}

// all lists the live sandboxes.
func (rs *Runtimes) all() []*Runtime {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	out := make([]*Runtime, 0, len(rs.m))
	for _, rt := range rs.m {
		out = append(out, rt)
	}
	return out
}

// Enforcement returns what a session's commands run under.
func (rs *Runtimes) Enforcement(sessionID string) (sandbox.Enforcement, error) {
	rt, err := rs.Runtime(sessionID)
	if err != nil {
		return sandbox.Enforcement{}, err
	}
	return rt.Shell.Enforcement(), nil
}

// AlternatesKey is the session setting listing shadow repositories whose snapshots a forked
// workspace may restore (its ancestors'), one per line: the workspaces set it when they fork,
// and a session's snapshotter borrows their objects.
const AlternatesKey = "shadow_alternates"

// Alternates lists the shadow repositories of a session's AlternatesKey setting.
func Alternates(s *api.Session) []string {
	var out []string
	for _, l := range strings.Split(s.Settings[AlternatesKey], "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}
