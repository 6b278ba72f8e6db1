package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/governance"
)

// Scope returns a session's scope.
func (s *Service) Scope(ctx context.Context, sessionID string) (governance.Scope, error) {
	se, err := s.session(sessionID)
	if err != nil {
		return governance.Scope{}, err
	}
	return governance.CurrentScope(s.h, se.ID)
}

// SetScope replaces a session's scope (recorded as scope.set by the user).
func (s *Service) SetScope(ctx context.Context, sessionID string, sc governance.Scope, reason string) (governance.Scope, error) {
	se, err := s.session(sessionID)
	if err != nil {
		return governance.Scope{}, err
	}
	if reason == "" {
		reason = "user"
	}
	out, err := governance.SetScope(s.h, se.ID, sc, harness.ActorUser, reason)
	return out, invalid(err)
}

// Drift reports a session's drift and conflicts.
func (s *Service) Drift(ctx context.Context, sessionID string) (api.DriftReport, error) {
	se, err := s.session(sessionID)
	if err != nil {
		return api.DriftReport{}, err
	}
	st, err := s.tracker.State(se.ID)
	if err != nil {
		return api.DriftReport{}, err
	}
	return api.DriftReport{Session: se.ID, Name: se.Name, Scope: st.Scope, Drift: st.Drift(), Conflicts: st.Conflicts}, nil
}

// ConflictDiff renders, for every path a session and another (or any other, when with is "")
// both changed, a unified diff of the two versions: the two working copies, or the two
// sessions' snapshots when they share a workspace.
func (s *Service) ConflictDiff(ctx context.Context, sessionID, with string) (string, error) {
	se, err := s.session(sessionID)
	if err != nil {
		return "", err
	}
	st, err := s.tracker.State(se.ID)
	if err != nil {
		return "", err
	}
	withName := "any other session"
	if with != "" {
		other, err := s.session(with)
		if err != nil {
			return "", err
		}
		with, withName = other.ID, other.Name
	}
	var b strings.Builder
	for _, c := range st.Conflicts {
		if with != "" && with != se.ID && c.With != with {
			continue
		}
		d, err := s.conflictDiff(se, c)
		if err != nil {
			d = err.Error()
		}
		fmt.Fprintf(&b, "%s\n\n", d)
	}
	if b.Len() == 0 {
		return "", fmt.Errorf("%w: no conflicts between %s and %s", api.ErrNotFound, se.Name, withName)
	}
	return b.String(), nil
}

// conflictDiff renders one conflicting path; when both sessions made the same change it says so
// (never an empty diff).
func (s *Service) conflictDiff(se *harness.Session, c governance.ConflictDetected) (string, error) {
	d, err := s.conflictText(se, c)
	if err == nil && d == "" {
		d = c.Path + ": both sessions changed it, and left it the same (nothing to reconcile)"
	}
	return d, err
}

// conflictText diffs one path: the two working copies, or the two sessions' snapshots when they
// share a workspace.
func (s *Service) conflictText(se *harness.Session, c governance.ConflictDetected) (string, error) {
	if !c.Shared && c.Workspace != "" && c.Workspace != se.Workspace {
		return governance.DiffWorkspaces(c.Path, se.Name, se.Workspace, c.WithName, c.Workspace)
	}
	a, err := s.h.FileAtSnapshot(se.ID, c.Path)
	if err != nil {
		return "", err
	}
	b, err := s.h.FileAtSnapshot(c.With, c.Path)
	if err != nil {
		return "", err
	}
	return governance.UnifiedDiff(c.Path, se.Name, a, c.WithName, b), nil
}

// finishOptions builds the governance options of a finish: the checks of the session's sealed
// constitution, run in its sandbox. A stale lock's checks still run, with a warning.
func (s *Service) finishOptions(se *harness.Session, req api.FinishRequest) (governance.FinishOptions, string) {
	o := governance.FinishOptions{Summary: req.Summary, Actor: harness.ActorUser}
	if req.SkipChecks {
		return o, ""
	}
	var warning string
	c, err := governance.VerifyLock(se.Workspace)
	if err != nil {
		warning = err.Error() + "; running the checks of the last compiled lock"
		c = nil
		if _, sealed, lerr := governance.ReadLock(se.Workspace); lerr == nil {
			c = sealed
		}
	}
	if c != nil {
		timeout := req.CheckTimeout
		if timeout <= 0 {
			timeout = 10 * time.Minute
		}
		o.Checks = c.Checks
		o.Run = governance.SandboxRunner(s.h, se.ID, timeout)
	}
	return o, warning
}

// Finish runs the constitution's checks and records the session's memento.
func (s *Service) Finish(ctx context.Context, req api.FinishRequest) (*governance.Memento, error) {
	se, err := s.session(req.Session)
	if err != nil {
		return nil, err
	}
	o, _ := s.finishOptions(se, req)
	return governance.Finish(ctx, s.h, se.ID, o)
}

// Handoff finishes a session and hands it to another (created in its workspace when new).
func (s *Service) Handoff(ctx context.Context, req api.HandoffRequest) (*api.HandoffResult, error) {
	if req.To == "" {
		return nil, invalidf("give the receiving session (an existing session or a new name)")
	}
	se, err := s.session(req.Finish.Session)
	if err != nil {
		return nil, err
	}
	o, warning := s.finishOptions(se, req.Finish)
	res, err := governance.Handoff(ctx, s.h, governance.HandoffOptions{From: se.ID, To: req.To, Note: req.Note, Create: true, Finish: o})
	if errors.Is(err, harness.ErrAmbiguous) || errors.Is(err, governance.ErrSameSession) {
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	return &api.HandoffResult{From: res.From, To: res.To, Created: res.Created, Memento: res.Memento, Warning: warning}, nil
}
