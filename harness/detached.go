package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"

	"exo/harness/config"
	"exo/sandbox"
)

// tasksDir is where detached tasks keep their files.
func (h *Harness) tasksDir() string { return filepath.Join(h.Home(), "tasks") }

// taskFile names a detached task's state file.
func taskFile(dir string) string { return filepath.Join(dir, "task.json") }

// taskOutput names a detached task's output file.
func taskOutput(dir string) string { return filepath.Join(dir, "output.log") }

// StartDetached starts command in the background for a session in a process of its own
// (exe is exo's executable) and records task.started. It returns at once.
func (h *Harness) StartDetached(sessionID, command, exe string) (DetachedTask, error) {
	s, err := h.Session(sessionID)
	if err != nil {
		return DetachedTask{}, err
	}
	if s.Workspace == "" {
		return DetachedTask{}, fmt.Errorf("session %s has no workspace", s.Name)
	}
	t := DetachedTask{ID: "bg-" + NewID()[8:], Session: s.ID, Branch: s.Branch, Command: command,
		Workspace: s.Workspace, Network: s.Settings["network"] == "on", Started: time.Now().UTC()}
	dir := filepath.Join(h.tasksDir(), t.ID)
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
	_, err = h.AppendOn(s.ID, s.Branch, MustRecord(TypeTaskStarted, ActorUser, TaskStarted{TaskID: t.ID, Command: command}))
	return t, err
}

// writeTask stores a task's state atomically.
func writeTask(dir string, t DetachedTask) error {
	b, _ := json.MarshalIndent(t, "", "  ")
	tmp := taskFile(dir) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("write task %s: %w", t.ID, err)
	}
	return os.Rename(tmp, taskFile(dir))
}

// readTask loads a task's state.
func readTask(dir string) (DetachedTask, error) {
	var t DetachedTask
	b, err := os.ReadFile(taskFile(dir))
	if err != nil {
		return t, err
	}
	return t, json.Unmarshal(b, &t)
}

// DetachedTasks lists detached tasks, newest first, after recording finished ones.
func (h *Harness) DetachedTasks() ([]DetachedTask, error) {
	h.RecordDetached()
	dirs, _ := filepath.Glob(filepath.Join(h.tasksDir(), "bg-*"))
	var out []DetachedTask
	for _, d := range dirs {
		if t, err := readTask(d); err == nil {
			t.Command = h.Redact(t.Command)
			out = append(out, t)
		}
	}
	out = append(out, h.shellDetached()...)
	sort.Slice(out, func(i, j int) bool { return out[i].Started.After(out[j].Started) })
	return out, nil
}

// RecordDetached appends task.completed (with the output as an artifact, redacted) for every
// detached task that ended since it was last looked at.
func (h *Harness) RecordDetached() {
	recordDetachedMu.Lock() // the daemon's watcher and a listing may look at once: record each end once
	defer recordDetachedMu.Unlock()
	dirs, _ := filepath.Glob(filepath.Join(h.tasksDir(), "bg-*"))
	for _, d := range dirs {
		t, err := readTask(d)
		if err != nil || !t.Done || t.Recorded {
			continue
		}
		p := TaskCompleted{TaskID: t.ID, Command: t.Command, ExitCode: t.ExitCode, Killed: t.KillReason,
			DurationMs: t.Ended.Sub(t.Started).Milliseconds()}
		if f, err := os.Open(taskOutput(d)); err == nil {
			p.Tail = h.redactedTail(f, 4096)
			f.Seek(0, io.SeekStart)
			if a, err := h.putRedacted("output of "+t.ID, f); err == nil {
				p.Artifact = a
			}
			f.Close()
		}
		if _, err := h.Append(t.Session, MustRecord(TypeTaskCompleted, ActorHarness, p)); err == nil {
			h.recordSandboxSpan(t.Session, t.Command, SandboxDetached, t.Started, t.Ended, t.ExitCode, t.KillReason)
			// What stays on disk holds no secret: the command redacted, the raw output
			// replaced by its redacted artifact.
			t.Recorded, t.Command, t.Artifact = true, h.Redact(t.Command), p.Artifact
			if writeTask(d, t) == nil && p.Artifact != "" {
				os.Remove(taskOutput(d))
			}
		}
	}
}

// recordDetachedMu serialises RecordDetached.
var recordDetachedMu sync.Mutex

// putRedacted stores r as an artifact with secret values redacted.
func (h *Harness) putRedacted(name string, r io.Reader) (string, error) {
	w, err := artifactSink{h}.NewArtifact(name)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Abort()
		return "", err
	}
	return w.Commit()
}

// DetachedOutput copies a detached task's output so far to w, redacted.
func (h *Harness) DetachedOutput(id string, w io.Writer) error {
	dir := filepath.Join(h.tasksDir(), filepath.Base(id))
	f, err := os.Open(taskOutput(dir))
	if errors.Is(err, fs.ErrNotExist) {
		if t, terr := readTask(dir); terr == nil && t.Artifact != "" { // recorded: the redacted copy
			rc, aerr := h.OpenArtifact(t.Artifact)
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
	if r := h.redactor(); r != nil {
		rw := r.NewWriter(w)
		defer rw.Flush()
		w = rw
	}
	_, err = io.Copy(w, f)
	return err
}

// KillDetached stops a detached task (its runner records it as killed).
func (h *Harness) KillDetached(id string) error {
	if ok, err := h.killShellDetached(id); ok {
		return err
	}
	dir := filepath.Join(h.tasksDir(), filepath.Base(id))
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

// RunDetached is the body of a detached task's process (exo __task-run DIR): it runs the command
// confined like the session's shell, writes its output to DIR/output.log and its end to
// DIR/task.json. SIGTERM kills the command.
func RunDetached(dir string) error {
	// Listen first: a kill that comes while the task is still starting must not go unrecorded.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	t, err := readTask(dir)
	if err != nil {
		return err
	}
	t.Pid = os.Getpid()
	writeTask(dir, t)
	done := make(chan sandbox.TaskInfo, 1)
	limits, err := SandboxLimits(config.UserFile()) // the runner's environment is the daemon's
	if err != nil {
		return finishDetached(dir, t, -1, err.Error())
	}
	cfg := sandbox.Config{Workspace: t.Workspace, TmpDir: filepath.Join(dir, "tmp"), Network: t.Network, Limits: limits,
		Fallback: sandbox.RunUnconfined, Artifacts: fileSink{taskOutput(dir)},
		Hide: []string{filepath.Dir(filepath.Dir(dir))}} // exo's home: dir is EXO_HOME/tasks/ID
	tm, err := sandbox.NewTaskManager(cfg, sandbox.Probe(), func(ti sandbox.TaskInfo) { done <- ti })
	if err != nil {
		return finishDetached(dir, t, -1, err.Error())
	}
	ti, err := tm.Start(t.Command, sandbox.TaskOptions{Name: t.ID})
	if err != nil {
		return finishDetached(dir, t, -1, err.Error())
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-sig:
			tm.Kill(ti.ID)
		case <-ctx.Done():
		}
	}()
	end := <-done
	return finishDetached(dir, t, end.ExitCode, end.KillReason)
}

// finishDetached records a detached task's end.
func finishDetached(dir string, t DetachedTask, code int, killed string) error {
	t.Done, t.Ended, t.ExitCode, t.KillReason = true, time.Now().UTC(), code, killed
	return writeTask(dir, t)
}

// fileSink is an artifact sink that writes the full output to one file.
type fileSink struct{ path string }

// NewArtifact opens the output file.
func (f fileSink) NewArtifact(string) (sandbox.ArtifactWriter, error) {
	fh, err := os.OpenFile(f.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	return fileWriter{fh}, nil
}

// fileWriter is the output file as an artifact writer.
type fileWriter struct{ *os.File }

// Commit closes the file and returns its path.
func (w fileWriter) Commit() (string, error) { return w.Name(), w.Close() }

// Abort closes the file.
func (w fileWriter) Abort() error { return w.Close() }
