package harness

import (
	"fmt"
	"strings"
	"syscall"

	"exo/sandbox"
)

// liveRuntime returns a session's sandbox if it is running (it starts none).
func (h *Harness) liveRuntime(sessionID string) *Runtime {
	h.rt.mu.Lock()
	defer h.rt.mu.Unlock()
	return h.rt.m[sessionID]
}

// EndTurn ends what a turn (or a user's command) left in the session's sandbox: processes its
// commands detached (nohup, setsid, `cmd &`) are killed, and the tmp dir's files removed;
// background tasks, started on purpose, go on. A notice in the sandbox's live output says what
// was killed or what failed.
func (h *Harness) EndTurn(sessionID string) error {
	rt := h.liveRuntime(sessionID)
	if rt == nil {
		return nil
	}
	rt.runMu.Lock() // not while a command runs
	killed, err := rt.Shell.EndTurn()
	rt.runMu.Unlock()
	if len(killed) > 0 {
		var cmds []string
		for _, d := range killed {
			cmds = append(cmds, oneLine(h.Redact(d.Command)))
		}
		// In the sandbox's live output, where the processes showed: not in the answer's text.
		h.broker.publish(Notice{Session: sessionID, Output: fmt.Appendf(nil, "\n[exo: the turn ended: killed the processes left running by %s]\n", strings.Join(cmds, "; "))})
	}
	if err != nil {
		err = fmt.Errorf("end the turn's sandbox of %s: %w", sessionID, err)
		h.broker.publish(Notice{Session: sessionID, Output: []byte("\n[exo: " + err.Error() + "]\n")})
	}
	return err
}

// shellDetachedSep joins a session's id and a detached group's in the id `exo task` shows.
const shellDetachedSep = "."

// shellDetached lists the processes the sessions' commands detached, as tasks that `exo task
// ls` shows and `exo task kill` ends.
func (h *Harness) shellDetached() []DetachedTask {
	h.rt.mu.Lock()
	rts := make([]*Runtime, 0, len(h.rt.m))
	for _, rt := range h.rt.m {
		rts = append(rts, rt)
	}
	h.rt.mu.Unlock()
	var out []DetachedTask
	for _, rt := range rts {
		for _, d := range rt.Shell.Detached() {
			t := DetachedTask{ID: rt.Session + shellDetachedSep + d.ID, Session: rt.Session, Command: h.Redact(d.Command),
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
func (h *Harness) killShellDetached(id string) (bool, error) {
	session, group, found := strings.Cut(id, shellDetachedSep)
	if !found || !strings.HasPrefix(group, "detached-") {
		return false, nil
	}
	rt := h.liveRuntime(session)
	if rt == nil {
		return true, fmt.Errorf("task %s: %w", id, sandbox.ErrNoTask)
	}
	_, err := rt.Shell.KillDetached(group)
	return true, err
}
