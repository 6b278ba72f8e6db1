package workspaces

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"exo/harness/api"
	"exo/harness/eventlog"
	"exo/harness/runtimes"
	"exo/sandbox"
	"exo/store"
	"exo/store/failpoint"
)

// RemoveSession marks a session deleted (session.deleted; its events stay in the log) and
// removes the files exo made for it that no live session uses: its fork's working copy (and
// the worktree's record in the repository), its snapshots repository, its sandbox's temporary
// folder and its external executors' state. The removal is journaled with the mark: a crash
// part-way is completed by the next open, and doing it again is harmless. It returns the paths
// removed. The caller makes sure no turn or task runs on the session.
func (wk *Workspaces) RemoveSession(id string) ([]string, error) {
	s, err := wk.dir.Session(id)
	if err != nil {
		return nil, err
	}
	paths := wk.sessionPaths(s)
	j := eventlog.NewJournal(eventlog.OpDelete)
	j.Session, j.Paths = s.ID, paths
	var evs []store.Event
	err = wk.st.Update(func(tx *store.Tx) error {
		cur, err := eventlog.GetSession(tx, s.ID)
		if err != nil {
			return err
		}
		if evs, err = tx.Append(cur.Branch, eventlog.MustRecord(api.TypeSessionDeleted, api.ActorUser, api.SessionDeleted{Paths: paths})); err != nil {
			return err
		}
		cur.Deleted = true
		if err := eventlog.PutSession(tx, cur); err != nil {
			return err
		}
		return eventlog.PutJournal(tx, j)
	})
	if err != nil {
		return nil, fmt.Errorf("remove %s: %w", s.Name, err)
	}
	wk.log.Committed(s.ID, s.Branch, eventlog.EventsOf(evs))
	failpoint.Hit("remove.after-mark")
	wk.rt.CloseSandbox(s.ID)
	removed, problems := wk.FinishDelete(j)
	if len(problems) > 0 {
		return removed, fmt.Errorf("remove %s: the session is deleted but some of its files are left (exo gc or the next start tries again): %s", s.Name, strings.Join(problems, "; "))
	}
	return removed, nil
}

// FinishDelete removes a delete's paths that no live session uses and drops its journal entry
// when every one is gone; it returns what it removed and what it could not.
func (wk *Workspaces) FinishDelete(e eventlog.JournalEntry) (removed, problems []string) {
	refs, err := wk.references()
	if err != nil {
		return nil, []string{err.Error()}
	}
	for _, p := range e.Paths {
		if refs[p] {
			continue
		}
		if _, err := os.Lstat(p); os.IsNotExist(err) {
			continue
		}
		if err := wk.removeOwned(p); err != nil {
			problems = append(problems, err.Error())
			continue
		}
		failpoint.Hit("remove.path")
		removed = append(removed, p)
	}
	if len(problems) == 0 {
		if err := wk.st.Update(func(tx *store.Tx) error { return eventlog.DropJournal(tx, e.ID) }); err != nil {
			problems = append(problems, err.Error())
		}
	}
	return removed, problems
}

// sessionPaths lists the folders exo made for a session under EXO_HOME (never the user's own
// workspace).
func (wk *Workspaces) sessionPaths(s *api.Session) []string {
	var out []string
	if wk.owned(s.Workspace) {
		out = append(out, filepath.Clean(s.Workspace))
	}
	if s.Workspace != "" {
		out = append(out, sandbox.ShadowDir(wk.opts.Home, s.Workspace))
	}
	out = append(out, filepath.Join(wk.opts.Home, "tmp", s.ID))
	states, _ := filepath.Glob(filepath.Join(wk.opts.Home, "executors", "*", s.ID))
	return append(out, states...)
}

// ownedName is the name of a folder exo made for a session: an id (a shadow repository's with
// .git).
var ownedName = regexp.MustCompile(`^[0-9a-f]{16}(\.git)?$`)

// owned reports whether path is one of exo's own folders that hold sessions' files.
func (wk *Workspaces) owned(path string) bool {
	if path == "" {
		return false
	}
	path = filepath.Clean(path)
	if !ownedName.MatchString(filepath.Base(path)) {
		return false
	}
	for _, dir := range []string{"workspaces", "shadow", "tmp"} {
		if filepath.Dir(path) == filepath.Join(wk.opts.Home, dir) {
			return true
		}
	}
	return filepath.Dir(filepath.Dir(path)) == filepath.Join(wk.opts.Home, "executors")
}

// removeOwned removes one of exo's folders (a working copy with its worktree record); it
// refuses anything outside them.
func (wk *Workspaces) removeOwned(path string) error {
	if !wk.owned(path) {
		return fmt.Errorf("refusing to remove %s: not one of exo's folders", path)
	}
	if filepath.Dir(path) == filepath.Join(wk.opts.Home, "workspaces") {
		return sandbox.DiscardWorktree(path)
	}
	if err := os.RemoveAll(path); err != nil {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	return nil
}

// references returns every folder of exo's that a live session (or an operation in progress)
// uses: workspaces, their snapshots repositories and those they borrow objects from, sandbox
// temporary folders and executor state.
func (wk *Workspaces) references() (map[string]bool, error) {
	refs := map[string]bool{}
	// The journal first: a fork in progress is there until its session is recorded (see GC).
	entries, err := wk.log.Journal()
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Op == eventlog.OpForkClone && e.Dir != "" {
			refs[filepath.Clean(e.Dir)] = true // a fork is making it
		}
	}
	gcBetweenReads()
	all, err := wk.dir.Sessions()
	if err != nil {
		return nil, err
	}
	for _, s := range all {
		if s.Workspace != "" {
			refs[filepath.Clean(s.Workspace)] = true
			refs[sandbox.ShadowDir(wk.opts.Home, s.Workspace)] = true
		}
		for _, a := range runtimes.Alternates(s) {
			refs[filepath.Clean(a)] = true
		}
		refs[filepath.Join(wk.opts.Home, "tmp", s.ID)] = true
		states, _ := filepath.Glob(filepath.Join(wk.opts.Home, "executors", "*", s.ID))
		for _, st := range states {
			refs[st] = true
		}
	}
	return refs, nil
}

// gcBetweenReads runs between references' two reads; tests set it to land a fork's end there.
var gcBetweenReads = func() {}
