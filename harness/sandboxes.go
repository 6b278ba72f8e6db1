package harness

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"exo/harness/config"
	"exo/sandbox"
	"exo/store"
)

// Runtime is a session's live sandbox: its persistent shell and its workspace snapshots.
// The harness owns it; executors reach it through the harness's exec and snapshot calls.
type Runtime struct {
	Session   string
	Workspace string
	Shell     *sandbox.Shell
	Snaps     *sandbox.Snapshotter
	Tasks     *sandbox.TaskManager

	runMu sync.Mutex // one foreground command per session
	// baseline serialises taking the first snapshot, so PrepareBaseline and a tool never race.
	baseline sync.Mutex
	// stopWatch ends the workspace watcher.
	stopWatch context.CancelFunc
}

// runtimes holds the live sandboxes of a harness.
type runtimes struct {
	mu      sync.Mutex
	m       map[string]*Runtime
	closing bool
	caps    sandbox.Capabilities
	once    sync.Once
}

// Capabilities probes (once) what isolation this machine enforces.
func (h *Harness) Capabilities() sandbox.Capabilities {
	h.rt.once.Do(func() {
		if c := h.opts.Capabilities; c != nil {
			h.rt.caps = *c
			return
		}
		h.rt.caps = sandbox.Probe()
	})
	return h.rt.caps
}

// Runtime returns (starting lazily) the sandbox of a session.
func (h *Harness) Runtime(sessionID string) (*Runtime, error) {
	s, err := h.Session(sessionID)
	if err != nil {
		return nil, err
	}
	h.rt.mu.Lock()
	defer h.rt.mu.Unlock()
	if h.rt.closing {
		return nil, fmt.Errorf("sandbox of %s: exo is shutting down", s.Name)
	}
	if h.rt.m == nil {
		h.rt.m = map[string]*Runtime{}
	}
	if r := h.rt.m[s.ID]; r != nil && r.Workspace == s.Workspace {
		return r, nil
	}
	r, err := h.newRuntime(s)
	if err != nil {
		return nil, err
	}
	h.rt.m[s.ID] = r
	return r, nil
}

// newRuntime builds a session's shell and snapshotter from its settings.
func (h *Harness) newRuntime(s *Session) (*Runtime, error) {
	if s.Workspace == "" {
		return nil, fmt.Errorf("session %s has no workspace", s.Name)
	}
	if fi, err := os.Stat(s.Workspace); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("workspace %s of session %s is not a directory (moved or deleted?)", s.Workspace, s.Name)
	}
	limits, err := SandboxLimits(h.opts.ConfigFile)
	if err != nil {
		return nil, fmt.Errorf("sandbox of %s: %w", s.Name, err)
	}
	cfg := sandbox.Config{
		Limits:    limits,
		Workspace: s.Workspace,
		TmpDir:    filepath.Join(h.Home(), "tmp", s.ID),
		Network:   s.Settings["network"] == "on",
		Fallback:  sandbox.RunUnconfined,
		Artifacts: artifactSink{h},
		Helper:    h.opts.SandboxHelper,
		Hide:      []string{h.Home()}, // the secret key and the database, whatever path is used
	}
	if s.Settings["isolation"] == "strict" {
		cfg.Fallback = sandbox.Refuse
	}
	sh, err := sandbox.NewShell(cfg, h.Capabilities())
	if err != nil {
		return nil, fmt.Errorf("sandbox of %s: %w", s.Name, err)
	}
	snaps, err := sandbox.NewSnapshotter(s.Workspace, sandbox.ShadowDir(h.Home(), s.Workspace),
		sandbox.SnapshotOptions{Alternates: splitLines(s.Settings[alternatesKey]), Private: h.PrivateDirs()})
	if err != nil {
		sh.Close()
		return nil, fmt.Errorf("snapshots of %s: %w", s.Name, err)
	}
	snaps.OnProgress(h.progressReporter(s.ID))
	tasks, err := sandbox.NewTaskManager(cfg, h.Capabilities(), func(ti sandbox.TaskInfo) { h.taskDone(s.ID, ti) })
	if err != nil {
		sh.Close()
		return nil, fmt.Errorf("tasks of %s: %w", s.Name, err)
	}
	rt := &Runtime{Session: s.ID, Workspace: s.Workspace, Shell: sh, Snaps: snaps, Tasks: tasks}
	if stop, err := h.watchWorkspace(s.ID, rt); err == nil {
		rt.stopWatch = stop // without fsnotify, external edits are still caught by the next snapshot
	}
	return rt, nil
}

// closeRuntimes stops every live shell.
func (h *Harness) closeRuntimes() {
	h.rt.mu.Lock()
	all := h.rt.m
	h.rt.m, h.rt.closing = nil, true
	h.rt.mu.Unlock()
	for _, r := range all {
		if r.stopWatch != nil {
			r.stopWatch()
		}
		r.Tasks.Close() // waits for each task's completion to be recorded
		r.Shell.Close()
		r.Snaps.Close() // waits for a background gc of the shadow repository
	}
}

// artifactSink adapts the store's artifacts to the sandbox's sink interface, redacting secret
// values from the bytes as they stream in.
type artifactSink struct{ h *Harness }

// NewArtifact starts an artifact in the store.
func (a artifactSink) NewArtifact(name string) (sandbox.ArtifactWriter, error) {
	w, err := a.h.st.CreateArtifact(name)
	if err != nil {
		return nil, err
	}
	aw := &artifactWriter{sw: w, w: w}
	if r := a.h.redactor(); r != nil {
		rw := r.NewWriter(w)
		aw.red, aw.w = rw, rw
	}
	return aw, nil
}

// artifactWriter adapts store.ArtifactWriter to the sandbox interface.
type artifactWriter struct {
	sw  *store.ArtifactWriter
	red interface{ Flush() error }
	w   io.Writer
}

// Write streams bytes (redacted) into the artifact.
func (w *artifactWriter) Write(p []byte) (int, error) {
	if _, err := w.w.Write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Abort discards the artifact.
func (w *artifactWriter) Abort() error { return w.sw.Abort() }

// Commit flushes what the redactor held back, stores the artifact and returns its id.
func (w *artifactWriter) Commit() (string, error) {
	if w.red != nil {
		if err := w.red.Flush(); err != nil {
			w.sw.Abort()
			return "", err
		}
	}
	a, err := w.sw.Commit()
	return a.ID, err
}

// DefaultEnforcement says what a session with default settings runs under on this machine,
// with the caps of the user's configuration file (exo doctor shows it).
func DefaultEnforcement(caps sandbox.Capabilities) sandbox.Enforcement {
	dir, err := os.MkdirTemp("", "exo-probe-")
	if err != nil {
		return sandbox.Enforcement{Unenforced: []string{"could not probe: " + err.Error()}}
	}
	defer os.RemoveAll(dir)
	cfg := sandbox.Config{Workspace: dir, TmpDir: filepath.Join(dir, "tmp"), Fallback: sandbox.RunUnconfined, Helper: []string{"true"}}
	limits, err := SandboxLimits(config.UserFile())
	if err != nil {
		return sandbox.Enforcement{Unenforced: []string{err.Error()}}
	}
	if home, err := HomeDir(); err == nil {
		cfg.Hide = []string{home}
		if limits.TmpSize == 0 { // fitted to the disk of exo's home, where sessions' tmp dirs are
			limits.TmpSize = sandbox.MachineLimits(filepath.Join(home, "tmp")).TmpSize
		}
	}
	cfg.Limits = limits
	sh, err := sandbox.NewShell(cfg, caps)
	if err != nil {
		return sandbox.Enforcement{Unenforced: []string{err.Error()}}
	}
	defer sh.Close()
	return sh.Enforcement()
}

// Enforcement returns what a session's commands run under.
func (h *Harness) Enforcement(sessionID string) (sandbox.Enforcement, error) {
	rt, err := h.Runtime(sessionID)
	if err != nil {
		return sandbox.Enforcement{}, err
	}
	return rt.Shell.Enforcement(), nil
}
