package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"sync"
	"time"

	"github.com/creack/pty"
)

// ErrClosed is returned by a Shell or TaskManager used after Close.
var ErrClosed = errors.New("sandbox closed")

// Shell is a persistent shell in a PTY, started lazily on the first Run: cd, exported
// variables and functions persist between commands. One command runs at a time.
type Shell struct {
	cfg  Config
	enf  Enforcement
	prog string

	running chan struct{} // holds a token while a Run is in progress
	mu      sync.Mutex    // guards proc, closed and lost
	proc    *shellProc
	closed  bool
	lost    string // why the previous shell went away, reported by the next Run
	started int

	dmu      sync.Mutex // guards detached and dseq
	detached []*detachedGroup
	dseq     int
}

// NewShell validates the config and decides the enforcement using caps (from Probe);
// it starts nothing. Under the Refuse policy it fails when isolation is unavailable.
func NewShell(cfg Config, caps Capabilities) (*Shell, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, err
	}
	enf, err := plan(cfg, caps)
	if err != nil {
		return nil, fmt.Errorf("new shell in %s: %w", cfg.Workspace, err)
	}
	prog := cfg.Shell
	if prog == "" {
		prog = "bash"
		if _, err := exec.LookPath("bash"); err != nil {
			prog = "sh"
		}
	}
	if prog, err = exec.LookPath(prog); err != nil {
		return nil, fmt.Errorf("new shell: find shell: %w", err)
	}
	return &Shell{cfg: cfg, enf: enf, prog: prog, running: make(chan struct{}, 1)}, nil
}

// Enforcement returns the confinement the shell's commands run under.
func (s *Shell) Enforcement() Enforcement { return s.enf }

// Workspace returns the absolute workspace directory.
func (s *Shell) Workspace() string { return s.cfg.Workspace }

// Pid returns the shell's process id, or 0 when no shell is running.
func (s *Shell) Pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return 0
	}
	return s.proc.cmd.Process.Pid
}

// ensure returns a live shell, starting one if needed; restarted says a previous one was lost.
func (s *Shell) ensure() (p *shellProc, restarted bool, why string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, false, "", ErrClosed
	}
	if s.proc != nil && !s.proc.dead() {
		return s.proc, false, "", nil
	}
	if s.proc != nil {
		s.proc.teardown()
		if s.lost == "" {
			s.lost = "the previous shell exited"
		}
	}
	s.proc = nil
	p, err = startShell(s.cfg, s.enf, s.prog)
	if err != nil {
		return nil, false, "", err
	}
	s.proc, s.started = p, s.started+1
	why, s.lost = s.lost, ""
	return p, s.started > 1, why, nil
}

// discard throws away a wedged or dead shell so the next Run starts afresh.
func (s *Shell) discard(p *shellProc, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p.teardown()
	if s.proc == p {
		s.proc, s.lost = nil, why
	}
}

// Resize changes the PTY size that programs see (for the sandbox pane); it applies now
// if a shell is running and to shells started later.
func (s *Shell) Resize(rows, cols uint16) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.Rows, s.cfg.Cols = rows, cols
	if s.proc == nil {
		return nil
	}
	if err := pty.Setsize(s.proc.ptm, &pty.Winsize{Rows: rows, Cols: cols}); err != nil {
		return fmt.Errorf("resize shell pty: %w", err)
	}
	return nil
}

// Close kills the shell and everything it started.
func (s *Shell) Close() error {
	s.mu.Lock()
	s.closed = true
	p := s.proc
	s.proc = nil
	s.mu.Unlock()
	s.closeDetached()
	if p != nil {
		p.teardown()
	}
	d, err := OpenDir(s.cfg.TmpDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("close shell: %w", err)
	}
	defer d.Close()
	if err := d.RemoveAll(ctlDirName); err != nil {
		return fmt.Errorf("close shell: remove control dir: %w", err)
	}
	return nil
}

// readyTimeout bounds shell start-up.
const readyTimeout = 10 * time.Second
