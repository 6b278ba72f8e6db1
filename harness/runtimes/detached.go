package runtimes

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"

	"exo/harness/api"
	"exo/harness/eventlog"
)

// tasksDir is where detached tasks keep their files.
func (rs *Runtimes) tasksDir() string { return filepath.Join(rs.opts.Home, "tasks") }

// taskFile names a detached task's state file.
func taskFile(dir string) string { return filepath.Join(dir, "task.json") }

// taskOutput names a detached task's output file.
func taskOutput(dir string) string { return filepath.Join(dir, "output.log") }

// StartDetached starts command in the background for a session in a process of its own
// (exe is exo's executable) and records task.started. It returns at once.
func (rs *Runtimes) StartDetached(sessionID, command, exe string) (api.DetachedTask, error) {
	s, err := rs.dir.Session(sessionID)
	if err != nil {
		return api.DetachedTask{}, err
	}
	if s.Workspace == "" {
		return api.DetachedTask{}, fmt.Errorf("session %s has no workspace", s.Name)
	}
	t := api.DetachedTask{ID: "bg-" + eventlog.NewID()[8:], Session: s.ID, Branch: s.Branch, Command: command,
		Workspace: s.Workspace, Network: s.Settings["network"] == "on", Started: time.Now().UTC()}
	dir := filepath.Join(rs.tasksDir(), t.ID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return t, fmt.Errorf("start background task: %w", err)
	}
	if err := writeTask(dir, t); err != nil {
		return t, err
	}
	cmd := exec.Command(exe, "__task-run", dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return t, fmt.Errorf("start background task: %w", err)
	}
	t.Pid = cmd.Process.Pid
	cmd.Process.Release()
	_, err = rs.log.AppendOn(s.ID, s.Branch, eventlog.MustRecord(api.TypeTaskStarted, api.ActorUser, api.TaskStarted{TaskID: t.ID, Command: command}))
	return t, err
}

// writeTask stores a task's state atomically.
func writeTask(dir string, t api.DetachedTask) error {
	b, _ := json.MarshalIndent(t, "", "  ")
	tmp := taskFile(dir) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("write task %s: %w", t.ID, err)
	}
	return os.Rename(tmp, taskFile(dir))
}

// readTask loads a task's state.
func readTask(dir string) (api.DetachedTask, error) {
	var t api.DetachedTask
	b, err := os.ReadFile(taskFile(dir))
	if err != nil {
		return t, err
	}
	return t, json.Unmarshal(b, &t)
}

// DetachedTasks lists detached tasks, newest first, after recording finished ones.
func (rs *Runtimes) DetachedTasks() ([]api.DetachedTask, error) {
	rs.RecordDetached()
	dirs, _ := filepath.Glob(filepath.Join(rs.tasksDir(), "bg-*"))
	var out []api.DetachedTask
	for _, d := range dirs {
		if t, err := readTask(d); err == nil {
			t.Command = rs.sec.Redact(t.Command)
			out = append(out, t)
		}
	}
	out = append(out, rs.shellDetached()...)
	sort.Slice(out, func(i, j int) bool { return out[i].Started.After(out[j].Started) })
	return out, nil
}

// RecordDetached appends task.completed (with the output as an artifact, redacted) for every
// detached task that ended since it was last looked at.
func (rs *Runtimes) RecordDetached() {
	recordDetachedMu.Lock() // the daemon's watcher and a listing may look at once: record each end once
	defer recordDetachedMu.Unlock()
	dirs, _ := filepath.Glob(filepath.Join(rs.tasksDir(), "bg-*"))
	for _, d := range dirs {
		t, err := readTask(d)
		if err != nil || !t.Done || t.Recorded {
			continue
		}
		p := api.TaskCompleted{TaskID: t.ID, Command: t.Command, ExitCode: t.ExitCode, Killed: t.KillReason,
			DurationMs: t.Ended.Sub(t.Started).Milliseconds()}
		if f, err := os.Open(taskOutput(d)); err == nil {
			p.Tail = rs.sec.RedactedTail(f, 4096)
			f.Seek(0, io.SeekStart)
			if a, err := rs.putRedacted("output of "+t.ID, f); err == nil {
				p.Artifact = a
			}
			f.Close()
		}
		if _, err := rs.log.Append(t.Session, eventlog.MustRecord(api.TypeTaskCompleted, api.ActorHarness, p)); err == nil {
			rs.recordSandboxSpan(t.Session, t.Command, SandboxDetached, t.Started, t.Ended, t.ExitCode, t.KillReason)
			// What stays on disk holds no secret: the command redacted, the raw output
			// replaced by its redacted artifact.
			t.Recorded, t.Command, t.Artifact = true, rs.sec.Redact(t.Command), p.Artifact
			if writeTask(d, t) == nil && p.Artifact != "" {
				os.Remove(taskOutput(d))
			}
		}
	}
}

// recordDetachedMu serialises RecordDetached.
var recordDetachedMu sync.Mutex

// DetachedOutput copies a detached task's output so far to w, redacted.
func (rs *Runtimes) DetachedOutput(id string, w io.Writer) error {
	dir := filepath.Join(rs.tasksDir(), filepath.Base(id))
	f, err := os.Open(taskOutput(dir))
	if errors.Is(err, fs.ErrNotExist) {
		if t, terr := readTask(dir); terr == nil && t.Artifact != "" { // recorded: the redacted copy
			rc, aerr := rs.log.OpenArtifact(t.Artifact)
			if aerr != nil {
				return fmt.Errorf("output of %s: %w", id, aerr)
			}
			defer rc.Close()
			_, err = io.Copy(w, rc)
			return err
		}
	}
	if err != nil {
		return fmt.Errorf("output of %s: %w", id, err)
	}
	defer f.Close()
	if r := rs.sec.Redactor(); r != nil {
		rw := r.NewWriter(w)
		defer rw.Flush()
		w = rw
	}
	_, err = io.Copy(w, f)
	return err
}

// KillDetached stops a detached task (its runner records it as killed).
func (rs *Runtimes) KillDetached(id string) error {
	if ok, err := rs.killShellDetached(id); ok {
		return err
	}
	dir := filepath.Join(rs.tasksDir(), filepath.Base(id))
	t, err := readTask(dir)
	for i := 0; err == nil && t.Pid <= 0 && !t.Done && i < 50; i++ {
		time.Sleep(20 * time.Millisecond) // the runner has not recorded its pid yet
		t, err = readTask(dir)
	}
	if err != nil {
		return fmt.Errorf("task %s: %w", id, err)
	}
	if t.Done {
		return fmt.Errorf("task %s already ended (%s)", id, t.State())
	}
	if t.Pid <= 0 {
		return fmt.Errorf("task %s has not started yet; try again", id)
	}
	return syscall.Kill(t.Pid, syscall.SIGTERM)
}
