package runtimes

import (
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"exo/harness/api"
	"exo/harness/config"
	"exo/sandbox"
)

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
func finishDetached(dir string, t api.DetachedTask, code int, killed string) error {
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
