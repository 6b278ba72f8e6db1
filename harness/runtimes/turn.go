package runtimes

import (
	"fmt"
	"strings"
	"syscall"

	"exo/harness/api"
	"exo/sandbox"
)

// EndTurn ends what a turn (or a user's command) left in the session's sandbox: processes its
// commands detached (nohup, setsid, `cmd &`) are killed, and the tmp dir's files removed;
// background tasks, started on purpose, go on. A notice in the sandbox's live output says what
// was killed or what failed.
func (rs *Runtimes) EndTurn(sessionID string) error {
	rt := rs.live(sessionID)
	if rt == nil {
		return nil
	}
	rt.Run.Lock() // not while a command runs
	killed, err := rt.Shell.EndTurn()
	rt.Run.Unlock()
	if len(killed) > 0 {
		var cmds []string
		for _, d := range killed {
			cmds = append(cmds, oneLine(rs.sec.Redact(d.Command)))
		}
		// In the sandbox's live output, where the processes showed: not in the answer's text.
		rs.log.Publish(api.Notice{Session: sessionID, Output: fmt.Appendf(nil, "\n[exo: the turn ended: killed the processes left running by %s]\n", strings.Join(cmds, "; "))})
	}
	if err != nil {
		err = fmt.Errorf("end the turn's sandbox of %s: %w", sessionID, err)
		rs.log.Publish(api.Notice{Session: sessionID, Output: []byte("\n[exo: " + err.Error() + "]\n")})
	}
	return err
}

// shellDetachedSep joins a session's id and a detached group's in the id `exo task` shows.
const shellDetachedSep = "."

// shellDetached lists the processes the sessions' commands detached, as tasks that `exo task
// ls` shows and `exo task kill` ends.
func (rs *Runtimes) shellDetached() []api.DetachedTask {
	var out []api.DetachedTask
	for _, rt := range rs.all() {
		for _, d := range rt.Shell.Detached() {
			t := api.DetachedTask{ID: rt.Session + shellDetachedSep + d.ID, Session: rt.Session, Command: rs.sec.Redact(d.Command),
				Workspace: rt.Workspace, Started: d.Started, Ended: d.Ended, KillReason: d.KillReason, Done: !d.Running(), Recorded: true}
			if len(d.Pids) > 0 {
				t.Pid = d.Pids[0]
			}
			if t.Done && d.KillReason != "" {
				t.ExitCode = 128 + int(syscall.SIGKILL)
			}
			out = append(out, t)
		}
	}
	return out
}

// killShellDetached kills a group of detached processes named by shellDetached's id; ok is
// false when id is not one.
func (rs *Runtimes) killShellDetached(id string) (bool, error) {
	session, group, found := strings.Cut(id, shellDetachedSep)
	if !found || !strings.HasPrefix(group, "detached-") {
		return false, nil
	}
	rt := rs.live(session)
	if rt == nil {
		return true, fmt.Errorf("task %s: %w", id, sandbox.ErrNoTask)
	}
	_, err := rt.Shell.KillDetached(group)
	return true, err
}

// oneLine squeezes text onto one line of at most 200 runes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		return string(r[:199]) + "…"
	}
	return s
}
