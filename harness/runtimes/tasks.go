package runtimes

import (
	"fmt"

	"exo/harness/api"
	"exo/harness/eventlog"
	"exo/sandbox"
)

// StartTask starts a background command in a session's sandbox and records task.started.
// Its completion is recorded as task.completed (and wakes subscribers) when it ends.
func (rs *Runtimes) StartTask(sessionID, branch, callID, command string) (sandbox.TaskInfo, error) {
	rt, err := rs.Runtime(sessionID)
	if err != nil {
		return sandbox.TaskInfo{}, err
	}
	to := sandbox.TaskOptions{Name: "task output of " + oneLine(command)}
	if red := rs.sec.RedactStream(); red != nil {
		to.Filter = red
	}
	ti, err := rt.Tasks.Start(command, to)
	if err != nil {
		return ti, err
	}
	_, err = rs.log.AppendOn(sessionID, branch, eventlog.MustRecord(api.TypeTaskStarted, api.ActorHarness, api.TaskStarted{TaskID: ti.ID, Command: command, CallID: callID}))
	return ti, err
}

// Task returns a background task's state; its Output is redacted.
func (rs *Runtimes) Task(sessionID, id string) (sandbox.TaskInfo, error) {
	rt, err := rs.Runtime(sessionID)
	if err != nil {
		return sandbox.TaskInfo{}, err
	}
	ti, err := rt.Tasks.Info(id)
	ti.Output = rs.sec.Redact(ti.Output)
	return ti, err
}

// Tasks lists a session's background tasks.
func (rs *Runtimes) Tasks(sessionID string) ([]sandbox.TaskInfo, error) {
	rt, err := rs.Runtime(sessionID)
	if err != nil {
		return nil, err
	}
	list := rt.Tasks.List()
	for i := range list {
		list[i].Output = rs.sec.Redact(list[i].Output)
	}
	return list, nil
}

// KillTask kills a background task.
func (rs *Runtimes) KillTask(sessionID, id string) (sandbox.TaskInfo, error) {
	rt, err := rs.Runtime(sessionID)
	if err != nil {
		return sandbox.TaskInfo{}, err
	}
	return rt.Tasks.Kill(id)
}

// taskDone records a finished background task on the session's current branch and has the
// files it may have changed snapshotted (Hooks.TaskEnded).
func (rs *Runtimes) taskDone(sessionID string, ti sandbox.TaskInfo) {
	tail := rs.sec.Redact(ti.Output)
	if len(tail) > 4096 {
		tail = "…" + tail[len(tail)-4096:]
	}
	rec := eventlog.MustRecord(api.TypeTaskCompleted, api.ActorHarness, api.TaskCompleted{TaskID: ti.ID, Command: ti.Command, ExitCode: ti.ExitCode,
		Killed: ti.KillReason, Artifact: ti.ArtifactRef, Tail: tail, DurationMs: ti.Ended.Sub(ti.Started).Milliseconds()})
	rs.recordSandboxSpan(sessionID, ti.Command, SandboxTask, ti.Started, ti.Ended, ti.ExitCode, ti.KillReason)
	if _, err := rs.log.Append(sessionID, rec); err != nil {
		rs.log.Publish(api.Notice{Session: sessionID, Delta: fmt.Sprintf("\n[exo: could not record the end of %s: %v]\n", ti.ID, err)})
		return
	}
	if h := rs.opts.Hooks.TaskEnded; h != nil {
		h(sessionID)
	}
}

// RunningTasks counts the background tasks still running in the live sandboxes.
func (rs *Runtimes) RunningTasks() int {
	n := 0
	for _, rt := range rs.all() {
		for _, t := range rt.Tasks.List() {
			if t.State == sandbox.TaskRunning {
				n++
			}
		}
	}
	return n
}
