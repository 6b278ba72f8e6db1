package harness

import (
	"fmt"

	"exo/sandbox"
)

// StartTask starts a background command in a session's sandbox and records task.started.
// Its completion is recorded as task.completed (and wakes subscribers) when it ends.
func (h *Harness) StartTask(sessionID, branch, callID, command string) (sandbox.TaskInfo, error) {
	rt, err := h.Runtime(sessionID)
	if err != nil {
		return sandbox.TaskInfo{}, err
	}
	to := sandbox.TaskOptions{Name: "task output of " + oneLine(command)}
	if red := h.RedactStream(); red != nil {
		to.Filter = red
	}
	ti, err := rt.Tasks.Start(command, to)
	if err != nil {
		return ti, err
	}
	_, err = h.AppendOn(sessionID, branch, MustRecord(TypeTaskStarted, ActorHarness, TaskStarted{TaskID: ti.ID, Command: command, CallID: callID}))
	return ti, err
}

// Task returns a background task's state; its Output is redacted.
func (h *Harness) Task(sessionID, id string) (sandbox.TaskInfo, error) {
	rt, err := h.Runtime(sessionID)
	if err != nil {
		return sandbox.TaskInfo{}, err
	}
	ti, err := rt.Tasks.Info(id)
	ti.Output = h.Redact(ti.Output)
	return ti, err
}

// Tasks lists a session's background tasks.
func (h *Harness) Tasks(sessionID string) ([]sandbox.TaskInfo, error) {
	rt, err := h.Runtime(sessionID)
	if err != nil {
		return nil, err
	}
	list := rt.Tasks.List()
	for i := range list {
		list[i].Output = h.Redact(list[i].Output)
	}
	return list, nil
}

// KillTask kills a background task.
func (h *Harness) KillTask(sessionID, id string) (sandbox.TaskInfo, error) {
	rt, err := h.Runtime(sessionID)
	if err != nil {
		return sandbox.TaskInfo{}, err
	}
	return rt.Tasks.Kill(id)
}

// taskDone records a finished background task on the session's current branch and snapshots
// the files it may have changed.
func (h *Harness) taskDone(sessionID string, ti sandbox.TaskInfo) {
	tail := h.Redact(ti.Output)
	if len(tail) > 4096 {
		tail = "…" + tail[len(tail)-4096:]
	}
	rec := MustRecord(TypeTaskCompleted, ActorHarness, TaskCompleted{TaskID: ti.ID, Command: ti.Command, ExitCode: ti.ExitCode,
		Killed: ti.KillReason, Artifact: ti.ArtifactRef, Tail: tail, DurationMs: ti.Ended.Sub(ti.Started).Milliseconds()})
	h.recordSandboxSpan(sessionID, ti.Command, SandboxTask, ti.Started, ti.Ended, ti.ExitCode, ti.KillReason)
	if _, err := h.Append(sessionID, rec); err != nil {
		h.broker.publish(Notice{Session: sessionID, Delta: fmt.Sprintf("\n[exo: could not record the end of %s: %v]\n", ti.ID, err)})
		return
	}
	_, _ = h.SnapshotWorkspace(sessionID, "", "")
}

// RunningTasks counts the background tasks still running in the live sandboxes.
func (h *Harness) RunningTasks() int {
	h.rt.mu.Lock()
	rts := make([]*Runtime, 0, len(h.rt.m))
	for _, rt := range h.rt.m {
		rts = append(rts, rt)
	}
	h.rt.mu.Unlock()
	n := 0
	for _, rt := range rts {
		for _, t := range rt.Tasks.List() {
			if t.State == sandbox.TaskRunning {
				n++
			}
		}
	}
	return n
}
