package client

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"exo/harness/api"
	"exo/harness/daemon/wire"
	"exo/harness/rundir"
)

// ConnectOptions tune Connect.
type ConnectOptions struct {
	// Executable is the exo binary that runs `exo daemon` (default: this executable).
	Executable string
	// NoStart returns ErrUnavailable instead of starting a daemon when none runs, and keeps
	// the daemon that runs whatever its build (an older idle one is not replaced).
	NoStart bool
	// StartTimeout bounds the wait for a new daemon to answer (default 30 s: opening a large
	// store may take a while).
	StartTimeout time.Duration
}

// Connect returns a client of the daemon of EXO_HOME home, starting it if none runs (exactly one
// even when clients race: they take a start lock). A daemon of an older build that is idle is
// asked to exit and replaced; any other one of the same protocol is used as it is. Unless
// o.NoStart, the client starts a new daemon whenever a request finds none (the daemon was
// killed or went idle) and sends the request to it.
func Connect(ctx context.Context, home string, o ConnectOptions) (*Client, error) {
	dir, err := RuntimeDir()
	if err != nil {
		return nil, err
	}
	sock, err := SocketPath(dir, home)
	if err != nil {
		return nil, err
	}
	c := New(sock)
	c.home = home
	if !o.NoStart {
		c.starter = &starter{dir: dir, opts: o}
	}
	c.asIs = o.NoStart
	if _, err := c.Handshake(ctx, home); err == nil || !errors.Is(err, api.ErrUnavailable) || o.NoStart {
		return c, err
	}
	if err := c.startDaemon(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// starter is what a client needs to start its daemon.
type starter struct {
	dir  string
	opts ConnectOptions
	mu   sync.Mutex // one restart at a time per client
}

// startDaemon starts the daemon under the start lock, unless another client started one
// meanwhile, and checks that it is usable.
func (c *Client) startDaemon(ctx context.Context) error {
	unlock, err := lockFile(startLockPath(c.starter.dir, c.home))
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := c.Handshake(ctx, c.home); err == nil || !errors.Is(err, api.ErrUnavailable) {
		return err // another client started it meanwhile
	}
	if err := start(ctx, c.home, c.starter.opts); err != nil {
		return err
	}
	_, err = c.Handshake(ctx, c.home)
	return err
}

// restart gets a daemon back after a request could not reach one: the one another request or
// client started meanwhile, else a new one.
func (c *Client) restart(ctx context.Context) error {
	c.starter.mu.Lock()
	defer c.starter.mu.Unlock()
	if _, err := c.Handshake(ctx, c.home); err == nil || !errors.Is(err, api.ErrUnavailable) {
		return err
	}
	return c.startDaemon(ctx)
}

// Handshake says hello and checks that the daemon serves home with this protocol and build. A
// daemon of another build is replaced only by a newer build and only when it is idle (no work,
// no client following it): it is drained and ErrUnavailable returned so a new one starts.
// Otherwise a daemon of the same protocol serves this client as it is, and one of another
// protocol is explained in one line.
func (c *Client) Handshake(ctx context.Context, home string) (*Client, error) {
	info, err := c.Hello(ctx)
	if err != nil {
		return c, err
	}
	c.setInfo(info)
	if filepath.Clean(info.Home) != filepath.Clean(home) {
		return c, fmt.Errorf("the exo daemon at %s serves %s, not %s: stop it with 'exo daemon stop --home %s'", c.socket, info.Home, home, info.Home)
	}
	if (info.Protocol == wire.Protocol && info.Build == wire.BuildID()) || c.asIs {
		return c, nil
	}
	if !newerThan(info) {
		if info.Protocol == wire.Protocol {
			return c, nil // an older client of a newer daemon: it serves us as it is
		}
		return c, fmt.Errorf("the exo daemon running (pid %d, build %.12s of %s) is newer than this exo (build %.12s of %s) and speaks protocol %d, this exo %d: use the newer exo, or run 'exo daemon stop' (its running turns are cancelled)",
			info.Pid, info.Build, day(info.Built), wire.BuildID(), day(wire.BuildTime()), info.Protocol, wire.Protocol)
	}
	if err := c.drain(ctx, true, "replaced by build "+wire.BuildID()); err == nil {
		waitGone(ctx, info.Pid, 10*time.Second)
		return c, fmt.Errorf("%w: replaced an older daemon", api.ErrUnavailable)
	}
	if info.Protocol != Protocol {
		return c, fmt.Errorf("the exo daemon running (pid %d, build %.12s) speaks protocol %d and this exo %d; it is busy or has clients: wait for its turns to end and its apps to close, or run 'exo daemon stop'",
			info.Pid, info.Build, info.Protocol, wire.Protocol)
	}
	return c, nil // an older build of the same protocol, busy or followed: it serves us as it is
}

// newerThan reports whether this build is newer than the daemon's (a daemon that does not say
// when it was built predates the rule, so it is older).
func newerThan(info api.DaemonInfo) bool {
	return wire.BuildTime().After(info.Built)
}

// day formats a build time for a message.
func day(t time.Time) string {
	if t.IsZero() {
		return "an unknown date"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// drain asks the daemon to exit (only when idle, if ifIdle).
func (c *Client) drain(ctx context.Context, ifIdle bool, reason string) error {
	_, err := callOnce(ctx, c, api.MethodDrain, api.DrainRequest{IfIdle: ifIdle, Reason: reason})
	return err
}

// Stop asks the daemon to exit now (running turns are cancelled and recorded) and waits until
// its process is gone.
func (c *Client) Stop(ctx context.Context) error {
	if err := c.drain(ctx, false, "exo daemon stop"); err != nil {
		return err
	}
	if pid := c.Daemon().Pid; !waitGone(ctx, pid, 30*time.Second) {
		return fmt.Errorf("the daemon (pid %d) did not exit in 30 s", pid)
	}
	return nil
}

// waitGone waits until a process has exited; it reports whether it did.
func waitGone(ctx context.Context, pid int, limit time.Duration) bool {
	if pid <= 0 {
		return true
	}
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// lockFile takes an exclusive flock on path (created 0600), waiting for other holders.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open start lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("take start lock: %w", err)
	}
	return func() { f.Close() }, nil
}

// start runs the daemon detached (its own session, its output in EXO_HOME/daemon.log) and waits
// until it reports that it listens, or why it could not start: exo-daemon when it sits beside
// this executable and is of this build (see wire.FullBuild), else `exo daemon` of o.Executable
// (default this executable).
func start(ctx context.Context, home string, o ConnectOptions) error {
	exe := o.Executable
	if exe == "" {
		self, err := os.Executable()
		if err != nil {
			return fmt.Errorf("find exo's executable to start the daemon: %w", err)
		}
		exe = self
		if d := daemonBeside(self); d != "" {
			err := spawn(ctx, d, home, o, wire.ExpectBuildEnv+"="+wire.BuildID())
			if !errors.Is(err, errNotThisBuild) {
				return err
			}
		}
	}
	return spawn(ctx, exe, home, o, "")
}

// errNotThisBuild is a daemon binary that could not serve this client: of another build, or
// one that did not run at all.
var errNotThisBuild = errors.New("the daemon binary beside exo is not of its build")

// daemonBeside returns the daemon's own binary (wire.DaemonName) in self's folder, "" when
// there is none or it is self.
func daemonBeside(self string) string {
	p := filepath.Join(filepath.Dir(self), wire.DaemonName)
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return ""
	}
	if si, err := os.Stat(self); err == nil && os.SameFile(fi, si) {
		return ""
	}
	return p
}

// spawn runs `exe daemon --home home` detached with env added (when not empty) and waits for
// its report; errNotThisBuild when a daemon binary of another build refused, or exe could not
// run or exited without a word.
func spawn(ctx context.Context, exe, home string, o ConnectOptions, env string) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("create EXO_HOME: %w", err)
	}
	logf, err := openLog(home)
	if err != nil {
		return err
	}
	defer logf.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		w.Close()
		return err
	}
	defer null.Close()
	cmd := exec.Command(exe, "daemon", "--home", home)
	cmd.Dir = "/"
	cmd.Env = append(os.Environ(), wire.NotifyFDEnv+"=3")
	if env != "" {
		cmd.Env = append(cmd.Env, env)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, logf, logf
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		if env != "" {
			return fmt.Errorf("%w: %v", errNotThisBuild, err)
		}
		return fmt.Errorf("start the exo daemon: %w", err)
	}
	go func() { _ = cmd.Wait() }() // reaps the daemon if it exits while this client lives
	err = waitReady(ctx, r, o.StartTimeout, home)
	if env != "" && (errors.Is(err, errOtherBuild) || errors.Is(err, errSilent)) {
		return fmt.Errorf("%w: %v", errNotThisBuild, err)
	}
	return err
}

// errSilent and errOtherBuild are a daemon that exited without a report, and one of another
// build than its client's (wire.OtherBuild).
var (
	errSilent     = errors.New("the exo daemon could not start: it exited without saying why")
	errOtherBuild = errors.New("the exo daemon binary is of another build")
)

// waitReady reads the daemon's one-line report: "ready", or the error that stopped it.
func waitReady(ctx context.Context, r io.Reader, limit time.Duration, home string) error {
	if limit <= 0 {
		limit = 30 * time.Second
	}
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case l := <-line:
		if l == "ready" {
			return nil
		}
		if l == "" {
			return fmt.Errorf("%w; see %s", errSilent, logPath(home))
		}
		if strings.HasPrefix(l, wire.OtherBuild+"\t") {
			return fmt.Errorf("%w (build %.12s)", errOtherBuild, strings.TrimPrefix(l, wire.OtherBuild+"\t"))
		}
		code, msg, _ := strings.Cut(strings.TrimPrefix(l, "error: "), "\t")
		return &api.RemoteError{Code: code, Message: "the exo daemon could not start: " + msg}
	case <-time.After(limit):
		return fmt.Errorf("the exo daemon did not answer within %s; see %s", limit, logPath(home))
	case <-ctx.Done():
		return ctx.Err()
	}
}

// maxLogBytes is the size past which the log is started afresh when a daemon starts.
const maxLogBytes = 8 << 20

// openLog opens EXO_HOME/daemon.log (see rundir.LogPath) for appending, starting it afresh
// when it grew too big.
func openLog(home string) (*os.File, error) {
	p, err := rundir.LogPath(home)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(p); err == nil && fi.Size() > maxLogBytes {
		_ = os.Rename(p, p+".1")
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the daemon log: %w", err)
	}
	return f, nil
}

// logPath names the daemon's log of home for a message.
func logPath(home string) string {
	if p, err := rundir.LogPath(home); err == nil {
		return p
	}
	return filepath.Join(home, wire.LogName)
}
