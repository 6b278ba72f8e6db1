package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"
)

// WatchOptions tune a workspace watcher.
type WatchOptions struct {
	// Debounce is how long changes gather before a batch is sent; default 100ms.
	Debounce time.Duration
	// SkipDirs are directory names not watched; default .git plus DefaultSkipDirs.
	SkipDirs []string
	// Private are exo's own folders (absolute); one inside the root is not watched, so exo's
	// own writes there (snapshots into a shadow repository) never look like changes.
	Private []string
	// Helper is the argv prefix of an executable that imports this package (its init runs the
	// watcher child); default {os.Executable(), HelperCommand}, as for Config.Helper.
	Helper []string
	// OnRestart, when set, is told each time the watcher's process ended on its own (its error
	// says how: the start of a crash's trace included) before it is started again.
	OnRestart func(err error)
	// OnStartFailed, when set, is told each time a restart failed (it is tried again after
	// the back-off); without it OnRestart is. Changes go unseen until a restart succeeds, whose
	// Overflow batch says so.
	OnStartFailed func(err error)
}

// Changes is one debounced batch of changed paths.
type Changes struct {
	// Paths are workspace-relative, slash-separated, sorted and unique.
	Paths []string `json:"paths,omitempty"`
	// Overflow is true when changes were lost (the kernel dropped events, too many paths
	// changed at once, or the watcher's process restarted), so some are missing: look at the
	// whole workspace.
	Overflow bool `json:"overflow,omitempty"`
}

// Restart back-off of a watcher process that ended on its own: it starts at watchBackoffMin,
// doubles up to watchBackoffMax, and starts over once a process lived watchHealthy.
const (
	watchBackoffMin = 100 * time.Millisecond
	watchBackoffMax = 10 * time.Second
	watchHealthy    = 30 * time.Second
	// watchReadyTimeout bounds the child's first walk of the tree before it says ready.
	watchReadyTimeout = 2 * time.Minute
	// watchMaxLine bounds one message of the child (maxPending paths of at most PATH_MAX).
	watchMaxLine = 8 << 20
)

// Watch watches root recursively (new directories included, skipped ones excluded) and sends
// debounced batches of changed paths until ctx is done, then closes the channel.
//
// The watch runs in a child process of its own (this executable again, see watchChildMain):
// the workspace is the agent's, and a hostile sequence of renames there can make fsnotify
// dereference nil in its own goroutine, where no recover reaches. A child that dies is
// reported to OnRestart, counted as an Overflow batch (changes may have been missed) and
// started again with back-off; the caller's process is never taken down. Watch returns an
// error when the first child cannot start or fails its first walk. The Overflow batch of a
// restart comes once the new child watches, so nothing changed before then is missed.
func Watch(ctx context.Context, root string, opts WatchOptions) (<-chan Changes, error) {
	if opts.Debounce <= 0 {
		opts.Debounce = 100 * time.Millisecond
	}
	if opts.SkipDirs == nil {
		opts.SkipDirs = append([]string{".git"}, DefaultSkipDirs...)
	}
	if len(opts.Helper) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("watch %s: find exo's executable: %w", root, err)
		}
		opts.Helper = []string{exe, HelperCommand}
	}
	p := &watchProc{root: root, opts: opts}
	c, err := p.start(ctx)
	if err != nil {
		return nil, err
	}
	out := make(chan Changes)
	go p.run(ctx, c, out)
	return out, nil
}

// watchProc supervises the watcher's child processes for one Watch call.
type watchProc struct {
	root string
	opts WatchOptions
}

// watchChild is one running watcher process.
type watchChild struct {
	cmd     *exec.Cmd
	stdin   io.Closer
	stdout  *os.File
	lines   *bufio.Reader
	stderr  *headBuffer
	started time.Time
	// exited is closed once the process exited and was reaped; err (set before) is its exit.
	exited chan struct{}
	err    error
	// killed says exo killed it; the Onces close its input and output and kill it once.
	killed     atomic.Bool
	stdinOnce  sync.Once
	stdoutOnce sync.Once
	killOnce   sync.Once
}

// argv is the child's command line.
func (p *watchProc) argv() []string {
	a := append([]string{}, p.opts.Helper[1:]...)
	a = append(a, watchChildArg, "--root", p.root, "--debounce", strconv.FormatInt(int64(p.opts.Debounce), 10))
	for _, s := range p.opts.SkipDirs {
		a = append(a, "--skip", s)
	}
	for _, s := range p.opts.Private {
		a = append(a, "--private", s)
	}
	return a
}

// start runs a child and waits for its first walk of the tree to end.
func (p *watchProc) start(ctx context.Context) (*watchChild, error) {
	cmd := exec.Command(p.opts.Helper[0], p.argv()...)
	// No environment at all: the daemon's may hold what the watcher has no use for; the marker
	// lets the child's init recognise its role before any other code runs.
	cmd.Env = []string{watchChildEnv + "=1"}
	// The watcher dies with exo even when it cannot see its input close (stopped, or stuck
	// in the kernel on a hung mount): no orphan follows a workspace once the daemon is gone.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", p.root, err)
	}
	// A pipe of our own rather than StdoutPipe: Wait (which runs as soon as the child is
	// started, see launch) would close that one when the child exits, before its last lines
	// (the error it ends with) are read.
	stdout, childOut, err := os.Pipe()
	if err != nil {
		stdin.Close()
		return nil, fmt.Errorf("watch %s: %w", p.root, err)
	}
	cmd.Stdout = childOut
	c := &watchChild{cmd: cmd, stdin: stdin, stdout: stdout, lines: bufio.NewReaderSize(stdout, 4<<10), stderr: &headBuffer{max: 1 << 10}, exited: make(chan struct{})}
	cmd.Stderr = c.stderr
	err = c.launch()
	childOut.Close() // the child holds it now: its end is our end of file
	if err != nil {
		stdin.Close()
		stdout.Close()
		return nil, fmt.Errorf("watch %s: start the watcher process: %w", p.root, err)
	}
	c.started = time.Now()
	ready := make(chan error, 1)
	go func() {
		m, err := c.next()
		switch {
		case err != nil:
			ready <- err
		case m.Error != "":
			ready <- errors.New(m.Error)
		case !m.Ready:
			ready <- errors.New("the watcher process did not say it was ready")
		default:
			ready <- nil
		}
	}()
	var werr error
	select {
	case werr = <-ready:
	case <-ctx.Done():
		werr = ctx.Err()
	case <-time.After(watchReadyTimeout):
		werr = fmt.Errorf("the watcher process was not ready after %s", watchReadyTimeout)
	}
	if werr != nil {
		return nil, fmt.Errorf("watch %s: %w", p.root, c.explain(werr))
	}
	return c, nil
}

// launch starts the child from a goroutine locked to its thread, which stays until the child
// has exited and been reaped: the kernel sends Pdeathsig when the thread that forked the child
// ends, not the process, and Go ends a thread whose locked goroutine returns locked, so any
// other thread's end (another package's LockOSThread) cannot take the watcher along.
func (c *watchChild) launch() error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := c.cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		c.err = c.cmd.Wait()
		close(c.exited)
	}()
	return <-started
}

// run forwards the children's batches to out until ctx ends, restarting a child that ends.
func (p *watchProc) run(ctx context.Context, c *watchChild, out chan<- Changes) {
	defer close(out)
	backoff := watchBackoffMin
	for {
		err := p.forward(ctx, c, out)
		c.reap(time.Second) // it ended its output: let it exit, to tell how
		if ctx.Err() != nil {
			return
		}
		if p.opts.OnRestart != nil {
			p.opts.OnRestart(c.explain(err))
		}
		if time.Since(c.started) >= watchHealthy {
			backoff = watchBackoffMin
		}
		for c = nil; c == nil; {
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
				return
			}
			backoff = min(2*backoff, watchBackoffMax)
			var err error
			if c, err = p.start(ctx); err != nil && ctx.Err() == nil {
				p.failed(err)
			}
		}
		// Whatever changed from the old process's end until the new one watched is unknown: said
		// once the new one watches, so that a change made during the back-off is not lost.
		select {
		case out <- Changes{Overflow: true}:
		case <-ctx.Done():
			c.stop()
			return
		}
	}
}

// failed tells the options' hook that a restart failed (it is tried again after the back-off).
func (p *watchProc) failed(err error) {
	switch {
	case p.opts.OnStartFailed != nil:
		p.opts.OnStartFailed(err)
	case p.opts.OnRestart != nil:
		p.opts.OnRestart(err)
	}
}

// forward copies a child's batches to out until it ends (its error says why) or ctx ends.
func (p *watchProc) forward(ctx context.Context, c *watchChild, out chan<- Changes) error {
	stop := context.AfterFunc(ctx, c.stop) // unblocks the read below
	defer stop()
	for {
		m, err := c.next()
		if err != nil {
			return err
		}
		if m.Error != "" {
			return errors.New(m.Error)
		}
		if len(m.Paths) == 0 && !m.Overflow {
			continue
		}
		select {
		case out <- m.Changes:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// next reads the child's next message.
func (c *watchChild) next() (watchMessage, error) {
	var m watchMessage
	line, err := c.lines.ReadSlice('\n')
	for errors.Is(err, bufio.ErrBufferFull) { // a long batch: gather it, bounded
		buf := append([]byte{}, line...)
		for errors.Is(err, bufio.ErrBufferFull) && len(buf) <= watchMaxLine {
			line, err = c.lines.ReadSlice('\n')
			buf = append(buf, line...)
		}
		if len(buf) > watchMaxLine {
			return m, fmt.Errorf("the watcher process sent a message over %d bytes", watchMaxLine)
		}
		line = buf
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			return m, errors.New("its process ended")
		}
		return m, fmt.Errorf("read the watcher process: %w", err)
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return m, fmt.Errorf("the watcher process sent a malformed message: %w", err)
	}
	return m, nil
}

// stop ends the child at once and reaps it.
func (c *watchChild) stop() { c.reap(0) }

// reap closes the child's input, which ends it, waits grace for it to exit, kills it after
// that, and waits for it to be reaped (by launch's thread).
func (c *watchChild) reap(grace time.Duration) {
	c.stdinOnce.Do(func() { c.stdin.Close() })
	defer c.stdoutOnce.Do(func() { c.stdout.Close() }) // once it exited: all it wrote is read, or unwanted
	select {
	case <-c.exited:
		return
	case <-time.After(grace):
	}
	c.killOnce.Do(func() {
		select {
		case <-c.exited:
		default:
			c.killed.Store(true)
			c.cmd.Process.Kill()
		}
	})
	<-c.exited
}

// explain adds the child's exit status and the start of its error output (a crash's reason) to err.
func (c *watchChild) explain(err error) error {
	c.reap(time.Second)
	msg := "workspace watcher: " + err.Error()
	if c.err != nil && !c.killed.Load() {
		msg += " (" + c.err.Error() + ")"
	}
	if head := c.stderr.String(); head != "" {
		msg += ": " + head
	}
	return errors.New(msg)
}

// headBuffer keeps the first max bytes written to it: a crash's reason and where it happened
// come first in Go's trace.
type headBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

// Write keeps what still fits of p.
func (h *headBuffer) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := h.max - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// String is the kept head as one line of printable text.
func (h *headBuffer) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(strings.FieldsFunc(strings.ToValidUTF8(string(h.b), "?"), func(r rune) bool {
		return unicode.IsSpace(r) || !unicode.IsPrint(r)
	}), " ")
}
