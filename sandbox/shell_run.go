package sandbox

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"
)

// Run runs command in the persistent shell with stdin at end-of-file. On timeout or
// cancellation the command's processes (grandchildren too) are killed and the shell
// carries on; a shell that died or stays wedged is replaced, and the Result says so.
// One command runs at a time: a second Run waits for the first (or for its ctx).
// The error is non-nil only when the command could not be run at all.
func (s *Shell) Run(ctx context.Context, command string, opts RunOptions) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("run in shell: %w", err)
	}
	select {
	case s.running <- struct{}{}:
		defer func() { <-s.running }()
	case <-ctx.Done():
		return Result{}, fmt.Errorf("run in shell: waiting for the previous command: %w", ctx.Err())
	}
	start := time.Now()
	p, restarted, why, err := s.ensure()
	if err != nil {
		return Result{}, fmt.Errorf("run in shell: %w", err)
	}
	r := Result{ExitCode: -1, Restarted: restarted, Enforcement: s.enf}
	if restarted {
		r.Notes = append(r.Notes, fmt.Sprintf("shell restarted (%s): working directory, variables and functions were reset", why))
	}
	if err := p.writeCtl("cmd.sh", []byte(command+"\n")); err != nil {
		return r, fmt.Errorf("run in shell: write command file: %w", err)
	}
	name := opts.Name
	if name == "" {
		name = "shell-output"
	}
	st := newRunState(newCapture(s.cfg.InlineLimit, s.cfg.Artifacts, name), opts.Stream)
	st.keep.f = opts.Filter
	nonce := newNonce()
	st.expect(nonce)
	p.resetTTY()
	p.setCur(st)
	defer p.setCur(nil)
	track := s.beginCommand(p) // before the line is typed: every process the command starts is in it
	if err := p.write(p.runLine(nonce)); err != nil {
		if track.cg != "" {
			moveToCgroup(p.cmd.Process.Pid, track.sandboxCg)
			os.Remove(track.cg)
		}
		s.discard(p, "writing to it failed")
		p.removeCtl("cmd.sh")
		return r, fmt.Errorf("run in shell: %w", err)
	}
	s.wait(ctx, p, st, opts.timeout(), &r)
	if !p.dead() {
		s.endCommand(p, track, command, &r)
	} else if track.cg != "" {
		killCgroup(track.cg)
		os.Remove(track.cg)
	}
	// The command may hold a secret the model was given: it must not stay on disk once run.
	if err := p.removeCtl("cmd.sh"); err != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("the command's file could not be removed: %v", err))
	}
	r.Duration = time.Since(start)
	if err := st.finish(&r); err != nil {
		r.Notes = append(r.Notes, err.Error())
	}
	return r, nil
}

// timeout returns the effective timeout.
func (o RunOptions) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

// wait waits for the command's marker, the shell's exit, a timeout or cancellation.
func (s *Shell) wait(ctx context.Context, p *shellProc, st *runState, timeout time.Duration, r *Result) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case code := <-st.done:
		r.ExitCode = code
	case <-p.exited:
		s.shellExited(p, st, r)
	case <-timer.C:
		r.Killed, r.KillReason = true, timeoutReason(p, timeout)
		s.interrupt(p, st, r)
	case <-ctx.Done():
		r.Killed, r.KillReason = true, "cancelled"
		s.interrupt(p, st, r)
	}
}

// timeoutReason explains a timeout, noting when the command was waiting on the terminal.
func timeoutReason(p *shellProc, timeout time.Duration) string {
	why := fmt.Sprintf("timeout after %s", timeout)
	pid := p.cmd.Process.Pid
	if readingTTY(append(descendants(pid), append(nsMembers(pid), pid)...), p.tty) {
		why += " while waiting for terminal input (a password prompt or interactive program;" +
			" stdin is at end-of-file, so pass input in arguments or files)"
	}
	return why
}

// shellExited records that the shell itself exited during the command (e.g. `exit 3`).
func (s *Shell) shellExited(p *shellProc, st *runState, r *Result) {
	select { // drain output still in the PTY.
	case <-p.readEnd:
	case <-time.After(200 * time.Millisecond):
	}
	r.ExitCode = p.exitCode()
	r.Notes = append(r.Notes, fmt.Sprintf("the shell exited with status %d; the next command starts a new shell", r.ExitCode))
	s.discard(p, fmt.Sprintf("the shell exited with status %d", r.ExitCode))
}

// Interrupt tuning: how long to wait for the shell to come back after each round.
const (
	interruptGrace  = 100 * time.Millisecond
	interruptRounds = 5
	syncWait        = 300 * time.Millisecond
)

// interrupt stops the running command like Ctrl-C (sent to the terminal and to the
// shell, which breaks out of loops), kills whatever is left below the shell, resets
// the terminal and resynchronises; a shell that does not answer is replaced.
func (s *Shell) interrupt(p *shellProc, st *runState, r *Result) {
	pid := p.cmd.Process.Pid
	sync := newNonce()
	st.expect(sync)
	for round := 0; round < interruptRounds; round++ {
		p.write("\x03")
		syscall.Kill(pid, syscall.SIGINT)
		select {
		case code := <-st.done:
			r.ExitCode = code
			killTree(pid)
			return
		case <-time.After(interruptGrace):
		}
		killTree(pid)
		p.resetTTY()
		p.write(p.markerCmd(sync, "130") + "\n")
		select {
		case code := <-st.done:
			r.ExitCode = code
			return
		case <-p.exited:
			s.shellExited(p, st, r)
			return
		case <-time.After(syncWait):
		}
	}
	r.Notes = append(r.Notes, "the shell did not respond after the command was killed; it was replaced")
	s.discard(p, "it was wedged after a killed command")
}
