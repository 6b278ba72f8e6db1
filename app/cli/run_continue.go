package cli

import (
	"context"
	"path/filepath"

	"exo/harness/api"
)

// runConfig applies the configuration to exo run's flags: the model and executor of a new
// session when no flag names them, and the approval mode of the turn.
func (e *env) runConfig(ctx context.Context, c api.Client, f *runFlags) error {
	cfg, err := e.loadConfig(ctx, c, e.cwd(), f.format == formatText)
	if err != nil {
		return err
	}
	f.approval = cfg.Get(api.ConfigKeyApproval)
	fresh := f.session == "" && !f.cont
	if fresh && f.model == "" && cfg.FromFile(api.ConfigKeyModel) {
		f.model = cfg.Get(api.ConfigKeyModel)
		if _, err := c.Model(ctx, f.model); err != nil {
			return usagef("model %q (set in %s): %v", f.model, cfg.Source(api.ConfigKeyModel), err)
		}
	}
	if fresh && f.executor == "" && cfg.FromFile(api.ConfigKeyExecutor) {
		f.executor = cfg.Get(api.ConfigKeyExecutor)
	}
	return nil
}

// latestHere returns the current directory's most recently used session (the newest prompt;
// forks of its sessions included): what -c/--continue continues.
func (e *env) latestHere(ctx context.Context, c api.Client) (*api.Session, error) {
	all, err := c.ListSessions(ctx)
	if err != nil {
		return nil, err
	}
	here := e.cwd()
	var best *api.SessionInfo
	for i := range all {
		in := &all[i]
		if !inDir(in.Session, here) || in.Orphaned || in.Session.Archived {
			continue
		}
		if best == nil || in.LastUsed.After(best.LastUsed) {
			best = in
		}
	}
	if best == nil {
		return nil, usagef("no session in %s to continue: run without -c to start one", here)
	}
	return best.Session, nil
}

// inDir reports whether a session works in dir: its workspace, or (a fork) its project.
func inDir(s *api.Session, dir string) bool {
	dir = filepath.Clean(dir)
	return filepath.Clean(s.Workspace) == dir || (s.Settings["project"] != "" && filepath.Clean(s.Settings["project"]) == dir)
}
