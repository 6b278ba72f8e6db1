package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"exo/harness"
	"exo/harness/api"
)

// Exec runs a command in the session's sandbox as the user; output streams to out.
func (s *Service) Exec(ctx context.Context, req api.ExecRequest, out io.Writer) (api.ExecResult, error) {
	if req.Command == "" {
		return api.ExecResult{}, invalidf("no command")
	}
	se, err := s.session(req.Session)
	if err != nil {
		return api.ExecResult{}, err
	}
	res, err := s.h.UserExec(ctx, se.ID, req.Command, harness.ExecOptions{Stream: out, Timeout: req.Timeout})
	if err != nil {
		return api.ExecResult{}, err
	}
	return api.ExecResult{ExitCode: res.ExitCode, Killed: res.Killed, KillReason: res.KillReason,
		DurationMs: res.Duration.Milliseconds(), Artifact: res.ArtifactRef}, nil
}

// StartTask runs a command detached in the background.
func (s *Service) StartTask(ctx context.Context, sessionID, command string) (harness.DetachedTask, error) {
	if command == "" {
		return harness.DetachedTask{}, invalidf("no command")
	}
	se, err := s.session(sessionID)
	if err != nil {
		return harness.DetachedTask{}, err
	}
	if s.opts.Executable == "" {
		return harness.DetachedTask{}, fmt.Errorf("background tasks need exo's executable, which this harness was not given")
	}
	return s.h.StartDetached(se.ID, command, s.opts.Executable)
}

// Tasks lists background tasks.
func (s *Service) Tasks(ctx context.Context) ([]harness.DetachedTask, error) {
	ts, err := s.h.DetachedTasks()
	if ts == nil {
		ts = []harness.DetachedTask{}
	}
	return ts, err
}

// TaskOutput writes a task's output so far.
func (s *Service) TaskOutput(ctx context.Context, taskID string, out io.Writer) error {
	return notFound(s.h.DetachedOutput(taskID, out))
}

// KillTask kills a background task.
func (s *Service) KillTask(ctx context.Context, taskID string) error {
	return notFound(s.h.KillDetached(taskID))
}

// notFound marks a missing file's error as ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %w", api.ErrNotFound, err)
	}
	return err
}

// Enforcement reports the sandbox policy in force for a session.
func (s *Service) Enforcement(ctx context.Context, sessionID string) (api.EnforcementInfo, error) {
	enf, err := s.h.Enforcement(sessionID)
	if err != nil {
		return api.EnforcementInfo{}, err
	}
	return api.EnforcementInfo{Summary: enf.String(), Network: enf.NetworkAllowed, Confined: enf.Confined()}, nil
}
