package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Snapshot records the whole workspace (files changed by any means) as a new shadow
// commit and makes the ref durable before returning. It respects .gitignore, skips
// the dependency folders and untracked files over the size limit (listed in Skipped),
// and when nothing changed returns the previous snapshot with no changes.
func (s *Snapshotter) Snapshot() (Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Snapshot{}, ErrSnapshotterClosed
	}
	defer s.takeTurn()()
	return s.snapshot("exo snapshot")
}

// snapshot is Snapshot without the lock, with a commit message.
func (s *Snapshotter) snapshot(msg string) (snap Snapshot, err error) {
	s.report(0, -1)
	defer func() { s.finished(len(snap.Changed)) }()
	st, err := s.stage()
	if err != nil { // a damaged index (it is a cache) is rebuilt from the last snapshot once.
		if rerr := s.resetIndex(); rerr != nil {
			return Snapshot{}, fmt.Errorf("snapshot %s: %w (and rebuilding the index: %v)", s.git.workTree, err, rerr)
		}
		if st, err = s.stage(); err != nil {
			return Snapshot{}, fmt.Errorf("snapshot %s: %w", s.git.workTree, err)
		}
	}
	tree, err := s.tree(st)
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot %s: %w", s.git.workTree, err)
	}
	var known []Change
	if st.exact {
		known = st.changes
	}
	if snap, err = s.commit(tree, msg, known); err != nil {
		return Snapshot{}, fmt.Errorf("snapshot %s: %w", s.git.workTree, err)
	}
	snap.Skipped = st.skipped
	return snap, nil
}

// tree returns the tree of the staged index: the latest snapshot's when status found the index
// equal to it and nothing to stage (the common case after a command that changed no file, which
// then costs one git process instead of two), else what `git write-tree` writes.
func (s *Snapshotter) tree(st staged) (string, error) {
	if st.untouched {
		if _, tree := s.head(); tree != "" {
			return tree, nil
		}
	}
	return s.git.line("write-tree")
}

// resetIndex replaces the shadow index with the latest snapshot's tree.
func (s *Snapshotter) resetIndex() error {
	if err := os.Remove(s.git.index); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("remove shadow index: %w", err)
	}
	s.headKnown = false
	if commit, _ := s.head(); commit != "" {
		if _, err := s.git.run(nil, "read-tree", commit); err != nil {
			return err
		}
	}
	return nil
}

// Head returns the latest snapshot's commit and tree, empty when there is none yet.
func (s *Snapshotter) Head() (commit, tree string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.takeTurn()()
	return s.head()
}

// head returns the latest snapshot commit and its tree, empty when there is none; it
// is cached until another Snapshotter of the shadow repository takes a turn (takeTurn).
func (s *Snapshotter) head() (commit, tree string) {
	if s.headKnown {
		return s.headCommit, s.headTree
	}
	out, err := s.git.line("rev-parse", "--quiet", snapshotRef+"^{commit}", snapshotRef+"^{tree}")
	if f := strings.Fields(out); err == nil && len(f) == 2 {
		s.headCommit, s.headTree = f[0], f[1]
	} else {
		s.headCommit, s.headTree = "", ""
	}
	s.headKnown = true
	return s.headCommit, s.headTree
}

// staged is what stage found: skipped paths, and the changes when status alone tells
// them exactly (no possible renames, index equal to the last snapshot before staging).
type staged struct {
	skipped []SkippedFile
	changes []Change
	exact   bool
	// untouched is true when status showed the index equal to the latest snapshot (no entry
	// but untracked ones) and nothing was staged: the index's tree is the snapshot's.
	untouched bool
}

// stage updates the shadow index from the work tree: one `git status` walk (with the
// stat and untracked caches) finds what changed, and only those paths are hashed.
// Large untracked files and nested repositories are left out and reported.
func (s *Snapshotter) stage() (staged, error) {
	out, err := s.git.run(nil, append([]string{"status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all"}, s.pathspec()...)...)
	if err != nil {
		return staged{}, err
	}
	st := staged{exact: true, untouched: true}
	var stagedPaths []string
	for _, e := range bytes.Split(out, []byte{0}) {
		if len(e) < 4 {
			continue
		}
		x, y, p := e[0], e[1], string(e[3:])
		if x != '?' {
			st.untouched = false
		}
		if IsPrivate(p, s.private) {
			continue
		}
		if x == '?' {
			if skip, ok := s.skipUntracked(p); ok {
				st.skipped = append(st.skipped, skip)
				continue
			}
		}
		st.note(x, y, p)
		stagedPaths = append(stagedPaths, p)
	}
	if s.afterStatus != nil {
		s.afterStatus()
	}
	st.settle()
	if len(stagedPaths) > 0 {
		st.untouched = false
		kept, raced, removed, err := s.stagePaths(stagedPaths)
		if err != nil {
			return staged{}, err
		}
		if len(removed) > 0 { // status saw files where a link is now: the trees tell the changes
			st.exact = false
		}
		if len(raced) > 0 {
			st.leaveOut(raced)
		}
		if err := s.verifyStaged(kept); err != nil {
			return staged{}, err
		}
	}
	st.skipped = append(st.skipped, s.skippedDirs()...)
	return st, nil
}

// leaveOut drops the changes of paths that were not staged and reports them as skipped.
func (st *staged) leaveOut(raced []string) {
	out := make(map[string]bool, len(raced))
	for _, p := range raced {
		out[p] = true
		st.skipped = append(st.skipped, SkippedFile{Path: p, Reason: racedReason})
	}
	st.changes = slices.DeleteFunc(st.changes, func(c Change) bool { return out[c.Path] })
}

// note records one status entry as a change, or marks the changes inexact.
func (st *staged) note(x, y byte, p string) {
	switch {
	case x == '?':
		st.changes = append(st.changes, Change{Path: p, Kind: Added})
	case x != ' ':
		st.exact = false
	case y == 'D':
		st.changes = append(st.changes, Change{Path: p, Kind: Deleted})
	case y == 'M' || y == 'T':
		st.changes = append(st.changes, Change{Path: p, Kind: Modified})
	default:
		st.exact = false
	}
}

// settle sorts the changes and gives up exactness when a rename is possible.
func (st *staged) settle() {
	var added, deleted bool
	for _, c := range st.changes {
		added, deleted = added || c.Kind == Added, deleted || c.Kind == Deleted
	}
	if added && deleted {
		st.exact = false
	}
	slices.SortFunc(st.changes, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
}

// skipUntracked decides whether an untracked path stays out of the snapshot.
func (s *Snapshotter) skipUntracked(p string) (SkippedFile, bool) {
	if strings.HasSuffix(p, "/") {
		return SkippedFile{Path: p, Reason: "nested git repository"}, true
	}
	fi, err := os.Lstat(filepath.Join(s.git.workTree, p))
	if err == nil && fi.Mode().IsRegular() && fi.Size() > s.opts.MaxFileSize {
		return SkippedFile{Path: p, Reason: fmt.Sprintf("untracked file of %d bytes is over the %d-byte limit", fi.Size(), s.opts.MaxFileSize)}, true
	}
	return SkippedFile{}, false
}

// skippedDirs lists dependency folders present at the top of the workspace.
func (s *Snapshotter) skippedDirs() []SkippedFile {
	var out []SkippedFile
	for _, d := range s.opts.SkipDirs {
		if fi, err := os.Stat(filepath.Join(s.git.workTree, d)); err == nil && fi.IsDir() {
			out = append(out, SkippedFile{Path: d + "/", Reason: "dependency or build folder"})
		}
	}
	for _, p := range s.private {
		out = append(out, SkippedFile{Path: p + "/", Reason: "exo's own folder (its home or runtime folder) inside the workspace"})
	}
	return out
}

// commit records tree as a new snapshot unless it equals the latest one; known, when
// not nil, are the changes already worked out, else they are diffed.
func (s *Snapshotter) commit(tree, msg string, known []Change) (Snapshot, error) {
	parent, parentTree := s.head()
	byAnother := s.byAnother(parent)
	if tree == parentTree {
		return Snapshot{Commit: parent, Tree: tree, Parent: parent, ParentByAnother: byAnother, ParentTree: parentTree}, nil
	}
	args := []string{"commit-tree", tree, "-m", msg}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	commit, err := s.git.line(args...)
	if err != nil {
		return Snapshot{}, err
	}
	old := parent
	if old == "" {
		old = strings.Repeat("0", 40)
	}
	if _, err := s.git.run(nil, "update-ref", "-m", msg, snapshotRef, commit, old); err != nil {
		s.headKnown = false
		return Snapshot{}, err
	}
	s.headCommit, s.headTree = commit, tree
	s.turn.writer = s.id
	changed := known
	if changed == nil {
		if changed, err = s.diff(parent, commit); err != nil {
			return Snapshot{}, err
		}
	}
	s.maybeGC()
	return Snapshot{Commit: commit, Tree: tree, Parent: parent, Changed: changed, ParentByAnother: byAnother, ParentTree: parentTree}, nil
}

// diff lists the paths changed between two commits, detecting renames.
func (s *Snapshotter) diff(from, to string) ([]Change, error) {
	args := []string{"diff-tree", "-r", "-z", "-M", "--name-status", "--no-commit-id"}
	if from == "" {
		args = append(args, "--root", to)
	} else {
		args = append(args, from, to)
	}
	out, err := s.git.run(nil, args...)
	if err != nil {
		return nil, err
	}
	return parseNameStatus(out), nil
}

// parseNameStatus parses `--name-status -z` output.
func parseNameStatus(out []byte) []Change {
	f := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	var changes []Change
	for i := 0; i+1 < len(f); i += 2 {
		st := f[i]
		switch {
		case strings.HasPrefix(st, "R") && i+2 < len(f):
			changes = append(changes, Change{From: f[i+1], Path: f[i+2], Kind: Renamed})
			i++
		case st == "A":
			changes = append(changes, Change{Path: f[i+1], Kind: Added})
		case st == "D":
			changes = append(changes, Change{Path: f[i+1], Kind: Deleted})
		default:
			changes = append(changes, Change{Path: f[i+1], Kind: Modified})
		}
	}
	return changes
}

// gcEvery is how many snapshots pass between `git gc --auto` checks.
const gcEvery = 50

// maybeGC keeps the shadow repository from growing without bound: after the first
// snapshot (which writes every file as a loose object) and every gcEvery snapshots it
// starts `git gc --auto` in the background, one at a time; Close waits for it.
func (s *Snapshotter) maybeGC() {
	s.n++
	if (s.n != 1 && s.n%gcEvery != 0) || !s.manyLooseObjects() {
		return
	}
	select {
	case s.gcSlot <- struct{}{}:
	default:
		return // a collection is already running.
	}
	s.gcRuns.Add(1)
	go func() {
		defer s.gcRuns.Done()
		defer func() { <-s.gcSlot }()
		s.git.run(nil, "gc", "--auto", "--quiet")
	}()
}

// defaultLooseObjects is the default SnapshotOptions.LooseObjectLimit.
const defaultLooseObjects = 2000

// manyLooseObjects estimates, as git does from one fan-out directory, whether the loose
// objects exceed the limit, so no gc process is started when it would do nothing.
func (s *Snapshotter) manyLooseObjects() bool {
	ents, err := os.ReadDir(filepath.Join(s.git.gitDir, "objects", "17"))
	return err == nil && len(ents)*256 > s.opts.LooseObjectLimit
}

// Close waits for a snapshot or restore under way and a background garbage collection to
// finish; later snapshots and restores fail with ErrSnapshotterClosed.
func (s *Snapshotter) Close() error {
	s.mu.Lock() // waits for a snapshot or restore under way
	s.closed = true
	s.mu.Unlock()
	s.gcRuns.Wait()
	return nil
}
