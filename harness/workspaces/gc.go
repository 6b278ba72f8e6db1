package workspaces

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"

	"exo/harness/api"
	"exo/harness/eventlog"
	"exo/store/failpoint"
)

// gcGlobs are where exo keeps sessions' folders, with their kinds.
var gcGlobs = []struct{ glob, kind string }{
	{"workspaces/*", "worktree"}, {"shadow/*.git", "snapshots"}, {"tmp/*", "sandbox"}, {"executors/*/*", "executor"},
}

// GC finds exo's folders that no live session uses (those of deleted sessions, of removals a
// crash cut short, of forks never recorded) and, unless dryRun, removes them, working copies
// with their records in the user's `git worktree list`. Removals a crash left in the journal
// are completed first. Artifacts are not collected (the log's events still name them). The
// old checkpoints of every session's branches that retention does not keep are pruned too.
func (wk *Workspaces) GC(dryRun bool) (api.GCReport, error) {
	rep := api.GCReport{Items: []api.GCItem{}, Removed: !dryRun}
	if !dryRun {
		entries, err := wk.log.Journal()
		if err != nil {
			return rep, err
		}
		for _, e := range entries {
			if e.Op == eventlog.OpDelete {
				_, problems := wk.FinishDelete(e)
				rep.Problems = append(rep.Problems, problems...)
			}
		}
	}
	// List the folders first, then read what references them (the journal before the
	// sessions, see references): a fork making its working copy journals it before the folder
	// exists and records its session before it drops the journal entry, so a folder that was
	// there to list is referenced by one or the other when they are read, however the fork
	// interleaves. Read the other way round, a fork recorded between the two reads lost its
	// new working copy.
	listed := make([][]string, len(gcGlobs))
	for i, g := range gcGlobs {
		listed[i], _ = filepath.Glob(filepath.Join(wk.opts.Home, g.glob))
	}
	refs, err := wk.references()
	if err != nil {
		return rep, err
	}
	for i, g := range gcGlobs {
		for _, p := range listed[i] {
			if refs[p] || !wk.owned(p) {
				continue
			}
			rep.Items = append(rep.Items, api.GCItem{Path: p, Kind: g.kind, Bytes: duBytes(p)})
		}
	}
	if !dryRun {
		failpoint.Hit("gc.before-checkpoints")
	}
	if err := wk.gcCheckpoints(dryRun, &rep); err != nil {
		return rep, err
	}
	sort.Slice(rep.Items, func(i, j int) bool { return rep.Items[i].Path < rep.Items[j].Path })
	for _, it := range rep.Items {
		rep.Bytes += it.Bytes
		if dryRun {
			continue
		}
		if err := wk.removeOwned(it.Path); err != nil {
			rep.Problems = append(rep.Problems, err.Error())
		}
		failpoint.Hit("gc.remove") // "gc.remove#N" kills exo after the Nth folder

	}
	return rep, nil
}

// duBytes adds up the sizes of the files under path.
func duBytes(path string) int64 {
	var n int64
	_ = filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// gcCheckpoints prunes (or, in a dry run, counts) the checkpoints retention does not keep on
// every branch of this daemon's sessions. A branch that cannot be pruned is a problem of the
// report; the rest go on.
func (wk *Workspaces) gcCheckpoints(dryRun bool, rep *api.GCReport) error {
	all, err := wk.dir.Sessions()
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, s := range all {
		for _, br := range append([]string{s.Branch}, s.Branches...) {
			if br == "" || seen[br] {
				continue
			}
			seen[br] = true
			var n int
			if dryRun {
				n, err = wk.st.PrunableCheckpoints(eventlog.SessionProjection, br)
			} else {
				n, err = wk.st.PruneCheckpoints(eventlog.SessionProjection, br)
			}
			rep.Checkpoints += n
			if err != nil {
				rep.Problems = append(rep.Problems, fmt.Sprintf("checkpoints of session %s: %v", s.Name, err))
			}
		}
	}
	return nil
}
