package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// shellProc is one running shell process and its PTY.
type shellProc struct {
	cmd     *exec.Cmd
	ptm     *os.File
	tty     string       // the PTY's slave path, e.g. /dev/pts/3
	termios unix.Termios // sane settings restored before each command
	tmp     string       // the sandbox's tmp dir, which holds ctlDirName
	bash    bool
	exited  chan struct{} // closed when the shell process has exited
	readEnd chan struct{} // closed when the PTY reader stops
	mu      sync.Mutex
	cur     *runState
	once    sync.Once
}

// startShell starts the shell under the helper and waits until it is ready.
func startShell(cfg Config, enf Enforcement, prog string) (*shellProc, error) {
	ready := newNonce()
	p := &shellProc{tmp: cfg.TmpDir, bash: filepath.Base(prog) == "bash", exited: make(chan struct{}), readEnd: make(chan struct{})}
	args, err := p.initArgs(ready)
	if err != nil {
		return nil, err
	}
	cmd, err := helperCmd(cfg, enf, cfg.Workspace, prog, args...)
	if err != nil {
		return nil, fmt.Errorf("start shell in %s: %w", cfg.Workspace, err)
	}
	if !p.bash {
		cmd.Env = append(cmd.Env, "ENV="+p.initFile())
	}
	if err := p.spawn(cmd, cfg.Rows, cfg.Cols); err != nil {
		removeCgroup(cmd)
		return nil, fmt.Errorf("start shell in %s: %w", cfg.Workspace, err)
	}
	if err := p.waitReady(ready); err != nil {
		p.teardown()
		return nil, fmt.Errorf("start shell in %s: %w", cfg.Workspace, err)
	}
	return p, nil
}

// ctlDirName is the folder of the sandbox's tmp dir holding the shell's init and command files.
const ctlDirName = ".exo-shell"

// initFile is the rc file that quiets the prompt and announces readiness.
func (p *shellProc) initFile() string { return filepath.Join(p.tmp, ctlDirName, "init.sh") }

// cmdFile holds the command being run.
func (p *shellProc) cmdFile() string { return filepath.Join(p.tmp, ctlDirName, "cmd.sh") }

// writeCtl writes one of the shell's control files. The tmp dir is the sandbox's own, so the
// agent may have replaced the file or its folder with a link: exo opens them beneath the tmp
// dir without following links and replaces whatever is there, never writing through it.
func (p *shellProc) writeCtl(name string, data []byte) error {
	d, err := OpenDir(p.tmp)
	if err != nil {
		return err
	}
	defer d.Close()
	if d.MkdirAll(ctlDirName, 0o700) != nil {
		if err := d.RemoveAll(ctlDirName); err != nil {
			return err
		}
		if err := d.MkdirAll(ctlDirName, 0o700); err != nil {
			return err
		}
	}
	rel := ctlDirName + "/" + name
	if err := d.RemoveAll(rel); err != nil {
		return err
	}
	return d.WriteFile(rel, data, 0o600)
}

// removeCtl removes one of the shell's control files once the shell is done with it, beneath
// the tmp dir without following links (a missing file or folder is not an error).
func (p *shellProc) removeCtl(name string) error {
	d, err := OpenDir(p.tmp)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.RemoveAll(ctlDirName + "/" + name)
}

// initArgs writes the init file and returns the shell's arguments.
func (p *shellProc) initArgs(ready string) ([]string, error) {
	init := "PS1=''; PS2=''; PS0=''; PS4='+ '\nunset PROMPT_COMMAND HISTFILE MAIL MAILPATH ENV\n"
	if p.bash {
		init += "set +o history\n"
	}
	init += p.markerCmd(ready, "0") + "\n"
	if err := p.writeCtl("init.sh", []byte(init)); err != nil {
		return nil, fmt.Errorf("start shell: write init file: %w", err)
	}
	if p.bash {
		return []string{"--noprofile", "--rcfile", p.initFile(), "--noediting", "-i"}, nil
	}
	return []string{"-i"}, nil
}

// markerCmd is shell code printing the completion marker with the given status expression.
func (p *shellProc) markerCmd(nonce, status string) string {
	pr := "printf"
	if p.bash {
		pr = "builtin printf"
	}
	// The marker goes to /dev/tty (the PTY) so a command that redirects the shell's
	// own stdout (exec >file) cannot swallow it.
	return fmt.Sprintf(`%s '\036EXO%s;%%d\037' "%s" >/dev/tty`, pr, nonce, status)
}

// runLine is the line typed into the shell to run the command file.
func (p *shellProc) runLine(nonce string) string {
	src := "."
	if p.bash {
		src = "builtin source"
	}
	return fmt.Sprintf("%s %s </dev/null; %s\n", src, quote(p.cmdFile()), p.markerCmd(nonce, "$?"))
}

// spawn opens the PTY with echo off and starts the shell as its session leader.
func (p *shellProc) spawn(cmd *exec.Cmd, rows, cols uint16) error {
	ptm, pts, err := pty.Open()
	if err != nil {
		return fmt.Errorf("open pty: %w", err)
	}
	defer pts.Close()
	if err := pty.Setsize(ptm, &pty.Winsize{Rows: rows, Cols: cols}); err != nil {
		ptm.Close()
		return fmt.Errorf("size pty: %w", err)
	}
	if err := p.quietTTY(pts); err != nil {
		ptm.Close()
		return err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pts, pts, pts
	cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setctty, cmd.SysProcAttr.Ctty = true, true, 0
	if err := cmd.Start(); err != nil {
		ptm.Close()
		return fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	p.cmd, p.ptm, p.tty = cmd, ptm, pts.Name()
	go p.readLoop()
	go func() { cmd.Wait(); close(p.exited) }()
	return nil
}

// quietTTY turns echo off on the PTY and remembers the settings.
func (p *shellProc) quietTTY(pts *os.File) error {
	t, err := unix.IoctlGetTermios(int(pts.Fd()), unix.TCGETS)
	if err != nil {
		return fmt.Errorf("get pty settings: %w", err)
	}
	t.Lflag &^= unix.ECHO | unix.ECHOE | unix.ECHOK | unix.ECHONL | unix.ECHOCTL
	if err := unix.IoctlSetTermios(int(pts.Fd()), unix.TCSETS, t); err != nil {
		return fmt.Errorf("set pty settings: %w", err)
	}
	p.termios = *t
	return nil
}

// resetTTY restores the sane settings (a killed full-screen program may leave raw mode).
func (p *shellProc) resetTTY() {
	t := p.termios
	unix.IoctlSetTermios(int(p.ptm.Fd()), unix.TCSETS, &t)
}

// readLoop copies PTY output to the current run until the PTY closes.
func (p *shellProc) readLoop() {
	defer close(p.readEnd)
	buf := make([]byte, 64<<10)
	for {
		n, err := p.ptm.Read(buf)
		if n > 0 {
			p.mu.Lock()
			if st := p.cur; st != nil {
				st.feed(buf[:n])
			}
			p.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// setCur directs output to st (nil discards it).
func (p *shellProc) setCur(st *runState) {
	p.mu.Lock()
	p.cur = st
	p.mu.Unlock()
}

// waitReady waits for the init file's marker.
func (p *shellProc) waitReady(nonce string) error {
	st := newRunState(newCapture(4096, nil, "start-up"), nil, nonce)
	p.setCur(st)
	defer p.setCur(nil)
	select {
	case <-st.done:
		return nil
	case <-p.exited:
		<-p.readEnd
		var r Result
		st.finish(&r)
		return fmt.Errorf("shell exited during start-up with status %d: %s", p.exitCode(), strings.TrimSpace(r.Output))
	case <-time.After(readyTimeout):
		return fmt.Errorf("shell not ready after %s", readyTimeout)
	}
}

// write types text into the shell.
func (p *shellProc) write(s string) error {
	if _, err := p.ptm.WriteString(s); err != nil {
		return fmt.Errorf("write to shell: %w", err)
	}
	return nil
}

// dead reports whether the shell has exited.
func (p *shellProc) dead() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// exitCode returns the shell's exit status once it has exited.
func (p *shellProc) exitCode() int { return exitStatus(p.cmd.ProcessState) }

// teardown kills the shell and its processes and closes the PTY.
func (p *shellProc) teardown() {
	p.once.Do(func() {
		pid := p.cmd.Process.Pid
		killTree(pid)
		p.cmd.Process.Kill()
		<-p.exited
		killTree(pid)
		killCgroups(p.cmd)
		removeCgroup(p.cmd)
		p.ptm.Close()
		<-p.readEnd
	})
}

// quote single-quotes s for the shell.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
