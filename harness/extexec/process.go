package extexec

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"exo/harness/secrets"
	"exo/sandbox"
)

// Spec describes an agent process to start.
type Spec struct {
	// Path is the program; Args its arguments (without argv[0]).
	Path string
	Args []string
	// Dir is the working directory (the session's workspace).
	Dir string
	// Env is what the agent's environment holds beyond the allow-list of CleanEnv.
	Env map[string]string
	// StderrLog, when set, is a file the error output is appended to.
	StderrLog string
	// Redact, when set, redacts the error output on its way to StderrLog (an agent's error
	// output may quote what its own tools read).
	Redact *secrets.Stream
	// Confine, when set, runs the agent under exo's confinement helper with this sandbox
	// configuration (AgentSandbox; its Env is replaced by the Env above; Workspace must be Dir).
	Confine *sandbox.Config
	// Caps are the host's sandbox capabilities (with Confine).
	Caps sandbox.Capabilities
	// Confinement says whether the agent acts itself and whether the user allowed it to run
	// without full confinement (with Confine).
	Confinement Confinement
}

// Process is a running agent speaking newline-delimited JSON on stdin and stdout. Its lines are
// read by one goroutine into Lines; Send is safe for concurrent use.
type Process struct {
	cmd   *exec.Cmd
	enf   *sandbox.Enforcement
	stdin io.WriteCloser
	lines chan []byte
	done  chan struct{}
	// eof is closed when stdout has ended (before the process is reaped).
	eof    chan struct{}
	stderr *tail
	log    *os.File
	// logw bounds what goes to log; red redacts it first (nil: nothing to redact).
	logw *cappedLog
	red  *streamWriter

	wmu     sync.Mutex
	why     atomic.Pointer[string] // why exo stopped it, if it did
	waitErr error
	started time.Time
}

// Start starts an agent. Its process group is its own, so Kill ends everything it started, and
// it is killed if exo dies.
func Start(spec Spec) (*Process, error) {
	cmd, enf, err := command(spec)
	if err != nil {
		return nil, err
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Pdeathsig = true, syscall.SIGKILL
	p := &Process{cmd: cmd, enf: enf, lines: make(chan []byte, 256), done: make(chan struct{}), eof: make(chan struct{}), stderr: newTail(16 << 10)}
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("start %s: %w", spec.Path, err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", spec.Path, err)
	}
	var errOut io.Writer = p.stderr
	if spec.StderrLog != "" {
		if p.log, err = openLog(spec.StderrLog); err != nil {
			if enf != nil {
				sandbox.Release(cmd)
			}
			return nil, fmt.Errorf("start %s: %w", spec.Path, err)
		}
		p.logw = newCappedLog(p.log)
		var logOut io.Writer = p.logw
		if spec.Redact != nil {
			p.red = &streamWriter{s: spec.Redact, w: p.logw}
			logOut = p.red
		}
		errOut = io.MultiWriter(p.stderr, logOut)
	}
	cmd.Stderr = errOut
	p.started = time.Now()
	if err := cmd.Start(); err != nil {
		p.closeLog()
		if enf != nil {
			sandbox.Release(cmd)
		}
		return nil, fmt.Errorf("start %s: %w", spec.Path, err)
	}
	go p.read(out)
	return p, nil
}

// command builds the agent's command, confined when the spec says so.
func command(spec Spec) (*exec.Cmd, *sandbox.Enforcement, error) {
	if spec.Confine == nil {
		cmd := exec.Command(spec.Path, spec.Args...)
		cmd.Dir, cmd.Env = spec.Dir, CleanEnv(os.Environ(), spec.Env)
		return cmd, nil, nil
	}
	cfg := *spec.Confine
	cfg.Env = spec.Env
	cmd, enf, err := sandbox.Command(cfg, spec.Caps, spec.Path, spec.Args...)
	if err == nil {
		if err = checkConfinement(spec, enf); err != nil {
			sandbox.Release(cmd)
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("start %s confined: %w", spec.Path, err)
	}
	return cmd, &enf, nil
}

// Enforcement is the confinement the agent runs under (nil when it runs unconfined).
func (p *Process) Enforcement() *sandbox.Enforcement { return p.enf }

// maxLineBytes bounds one line of an agent's output (a protocol message): an agent that writes
// more without a newline would otherwise grow the daemon's memory without end.
var maxLineBytes = 64 << 20

// read splits stdout into lines until EOF, then reaps the process. A line over maxLineBytes ends
// the agent (killed, saying why in its error output's tail).
func (p *Process) read(out io.Reader) {
	r := bufio.NewReaderSize(out, 64<<10)
	var line []byte
	for {
		part, err := r.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > maxLineBytes {
			p.StopFor(fmt.Sprintf("it wrote a line of over %d MiB to its output; exo stopped it", maxLineBytes>>20))
			_, _ = io.Copy(io.Discard, r) // until its output closes
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if l := bytes.TrimSpace(line); len(l) > 0 {
			p.lines <- l
		}
		line = nil
		if err != nil {
			break
		}
	}
	close(p.lines)
	close(p.eof)
	p.waitErr = p.cmd.Wait()
	if p.enf != nil {
		sandbox.Release(p.cmd)
	}
	p.closeLog()
	close(p.done)
}

func (p *Process) closeLog() {
	if p.log != nil {
		if p.red != nil {
			_, _ = p.logw.Write(p.red.s.Flush())
		}
		p.log.Close()
	}
}

// maxLogBytes bounds an agent's error log: exo writes it, outside the agent's own file size
// limit, and an agent may write to its error output without end.
var maxLogBytes int64 = 32 << 20

// cappedLog writes to the error log until it holds maxLogBytes, then notes the cut once and drops
// the rest. It never fails: a failing writer would stop the copy of the agent's error output
// (io.MultiWriter stops at the first error), and the agent would block writing to it.
type cappedLog struct {
	w    io.Writer
	left int64
	cut  bool
}

// newCappedLog bounds f from the size it has now.
func newCappedLog(f *os.File) *cappedLog {
	c := &cappedLog{w: f, left: maxLogBytes}
	if fi, err := f.Stat(); err == nil {
		c.left -= fi.Size()
	}
	return c
}

// Write writes what fits and reports all of p written.
func (c *cappedLog) Write(p []byte) (int, error) {
	if c.left > 0 {
		n := min(int64(len(p)), c.left)
		if _, err := c.w.Write(p[:n]); err != nil {
			c.left = 0
		} else {
			c.left -= n
		}
	}
	if c.left <= 0 && !c.cut {
		c.cut = true
		_, _ = fmt.Fprintf(c.w, "\n[exo: the error log is cut here, at %d MiB]\n", maxLogBytes>>20)
	}
	return len(p), nil
}

// streamWriter writes what a redacting stream settles of each write (one writer at a time: the
// process's error output is copied by one goroutine).
type streamWriter struct {
	s *secrets.Stream
	w io.Writer
}

// Write redacts p and writes what is settled; it reports len(p) on success.
func (w *streamWriter) Write(p []byte) (int, error) {
	if _, err := w.w.Write(w.s.Next(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// StopFor kills the agent because of what it did, why saying so ("it wrote …; exo stopped
// it"): StopReason returns it, and the agent's error output ends with it. The first reason stays.
func (p *Process) StopFor(why string) {
	if p.why.CompareAndSwap(nil, &why) {
		fmt.Fprintf(p.stderr, "\nexo: the agent %s\n", strings.TrimPrefix(why, "it "))
	}
	p.Kill()
}

// StopReason says why exo stopped the agent itself (a line over the bound), or "".
func (p *Process) StopReason() string {
	if w := p.why.Load(); w != nil {
		return *w
	}
	return ""
}

// Lines delivers stdout lines (without the newline); it is closed when stdout ends.
func (p *Process) Lines() <-chan []byte { return p.lines }

// Done is closed when the process has exited and its output is read.
func (p *Process) Done() <-chan struct{} { return p.done }

// Pid returns the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// ErrClosed means the agent's input is closed (it exited or is stopping).
var ErrClosed = errors.New("the agent's input is closed")

// Send writes v as one JSON line.
func (p *Process) Send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode message for the agent: %w", err)
	}
	return p.SendRaw(b)
}

// SendRaw writes one line of already encoded JSON.
func (p *Process) SendRaw(b []byte) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if p.stdin == nil {
		return ErrClosed
	}
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write to the agent: %w", err)
	}
	return nil
}

// CloseInput closes stdin: agents that read until EOF then exit on their own.
func (p *Process) CloseInput() {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if p.stdin != nil {
		p.stdin.Close()
		p.stdin = nil
	}
}

// Kill ends the process group at once.
func (p *Process) Kill() {
	if p.cmd.Process != nil {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// Stop closes stdin, waits up to grace for the agent to exit, then kills it, and waits.
func (p *Process) Stop(grace time.Duration) {
	p.CloseInput()
	select {
	case <-p.done:
		return
	case <-time.After(grace):
	}
	p.Kill()
	<-p.done
}

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// ExitStatus describes how the process ended (valid after Done): the exit code, or the signal
// that killed it.
func (p *Process) ExitStatus() (code *int, signal string) {
	st := p.cmd.ProcessState
	if st == nil {
		return nil, ""
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return nil, ws.Signal().String()
	}
	c := st.ExitCode()
	return &c, ""
}

// StderrTail returns the last bytes of the error output.
func (p *Process) StderrTail() string { return p.stderr.String() }

// LastWords returns the last bytes of the error output for an error about the agent: once its
// stdout has ended (it is leaving) they are read after the process is reaped, which ends the
// copy of what it wrote to stderr on its way out (at most wait later); while it runs, at once.
func (p *Process) LastWords(wait time.Duration) string {
	select {
	case <-p.eof:
		select {
		case <-p.done:
		case <-time.After(wait):
		}
	default:
	}
	return p.stderr.String()
}

// tail keeps the last n bytes written to it.
type tail struct {
	mu  sync.Mutex
	n   int
	buf []byte
}

func newTail(n int) *tail { return &tail{n: n} }

// Write keeps the newest bytes.
func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.n; over > 0 {
		t.buf = append(t.buf[:0:0], t.buf[over:]...)
	}
	return len(b), nil
}

// String returns what is kept.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
