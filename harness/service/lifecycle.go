package service

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"exo/harness"
	"exo/harness/api"
	"exo/store"
)

// ArchiveSession hides a session from lists (or brings it back).
func (s *Service) ArchiveSession(ctx context.Context, ref string, archived bool) (*harness.Session, error) {
	se, err := s.session(ref)
	if err != nil {
		return nil, err
	}
	return s.h.ArchiveSession(se.ID, archived)
}

// RemoveSession deletes a session that runs nothing.
func (s *Service) RemoveSession(ctx context.Context, ref string) (api.RemoveResult, error) {
	se, err := s.session(ref)
	if err != nil {
		return api.RemoveResult{}, err
	}
	if err := s.reserveRemoval(se); err != nil {
		return api.RemoveResult{}, err
	}
	defer s.endRemoval(se.ID)
	tasks, err := s.h.DetachedTasks()
	if err != nil {
		return api.RemoveResult{}, err
	}
	for _, t := range tasks {
		if t.Session == se.ID && (t.State() == "running" || t.State() == "starting") {
			return api.RemoveResult{}, fmt.Errorf("%w: background task %s runs on %s: exo task kill %s first", api.ErrBusy, t.ID, se.Name, t.ID)
		}
	}
	s.stopAgents(se.ID) // before its state folders go: no agent is left running for a removed session
	removed, err := s.h.RemoveSession(se.ID)
	if removed == nil {
		removed = []string{}
	}
	return api.RemoveResult{Session: se, Removed: removed}, err
}

// GC lists or removes the folders no live session uses.
func (s *Service) GC(ctx context.Context, dryRun bool) (harness.GCReport, error) {
	return s.h.GC(dryRun)
}

// Backup writes a consistent copy of the event store.
func (s *Service) Backup(ctx context.Context, path string) (api.BackupResult, error) {
	if path != "" && !filepath.IsAbs(path) {
		return api.BackupResult{}, fmt.Errorf("%w: backup path %q is not absolute", api.ErrInvalid, path)
	}
	p, n, err := s.h.Backup(ctx, path)
	if errors.Is(err, store.ErrNotLocal) || errors.Is(err, harness.ErrBackupPlace) {
		err = fmt.Errorf("%w: %v", api.ErrInvalid, err)
	}
	return api.BackupResult{Path: p, Bytes: n}, err
}

// reserveRemoval marks a session as being removed, so that no turn begins on it, unless a turn
// runs on it or another removal has it (ErrBusy).
func (s *Service) reserveRemoval(se *harness.Session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.running[se.ID] != nil:
		return fmt.Errorf("%w: a turn runs on %s: cancel it first (exo attach, Ctrl-C)", api.ErrBusy, se.Name)
	case s.removing[se.ID]:
		return fmt.Errorf("%w: %s is being removed", api.ErrBusy, se.Name)
	}
	s.removing[se.ID] = true
	return nil
}

// endRemoval drops the mark reserveRemoval set.
func (s *Service) endRemoval(id string) {
	s.mu.Lock()
	delete(s.removing, id)
	s.mu.Unlock()
}
