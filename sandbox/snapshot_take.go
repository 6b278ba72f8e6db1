package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Snapshot records the whole workspace (files changed by any means) as a new shadow
// commit and makes the ref durable before returning. It respects .gitignore, skips
// the dependency folders and untracked files over the size limit (listed in Skipped),
// and when nothing changed returns the previous snapshot with no changes.
func (s *Snapshotter) Snapshot() (Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshot("exo snapshot")
}

// snapshot is Snapshot without the lock, with a commit message.
func (s *Snapshotter) snapshot(msg string) (Snapshot, error) {
	skipped, err := s.stage()
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot %s: %w", s.git.workTree, err)
	}
	tree, err := s.git.line("write-tree")
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot %s: %w", s.git.workTree, err)
	}
	snap, err := s.commit(tree, msg)
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot %s: %w", s.git.workTree, err)
	}
	snap.Skipped = skipped
	return snap, nil
}

// Head returns the latest snapshot's commit and tree, empty when there is none yet.
func (s *Snapshotter) Head() (commit, tree string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.head()
}

// head returns the latest snapshot commit and its tree, empty when there is none.
func (s *Snapshotter) head() (commit, tree string) {
	out, err := s.git.line("rev-parse", "--quiet", snapshotRef+"^{commit}", snapshotRef+"^{tree}")
	if err != nil {
		return "", ""
	}
	f := strings.Fields(out)
	if len(f) != 2 {
		return "", ""
	}
	return f[0], f[1]
}

// stage updates the shadow index from the work tree: one `git status` walk (with the
// stat and untracked caches) finds what changed, and only those paths are hashed.
// Large untracked files and nested repositories are left out and reported.
func (s *Snapshotter) stage() ([]SkippedFile, error) {
	out, err := s.git.run(nil, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all")
	if err != nil {
		return nil, err
	}
	var skipped []SkippedFile
	var paths bytes.Buffer
	for _, e := range bytes.Split(out, []byte{0}) {
		if len(e) < 4 {
			continue
		}
		xy, p := string(e[:2]), string(e[3:])
		if xy == "??" {
			if skip, ok := s.skipUntracked(p); ok {
				skipped = append(skipped, skip)
				continue
			}
		}
		paths.WriteString(p)
		paths.WriteByte(0)
	}
	if paths.Len() > 0 {
		if _, err := s.git.run(&paths, "update-index", "--add", "--remove", "--replace", "-z", "--stdin"); err != nil {
			return nil, err
		}
	}
	return append(skipped, s.skippedDirs()...), nil
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
	return out
}

// commit records tree as a new snapshot unless it equals the latest one.
func (s *Snapshotter) commit(tree, msg string) (Snapshot, error) {
	parent, parentTree := s.head()
	if tree == parentTree {
		return Snapshot{Commit: parent, Tree: tree, Parent: parent}, nil
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
		return Snapshot{}, err
	}
	changed, err := s.diff(parent, commit)
	if err != nil {
		return Snapshot{}, err
	}
	s.maybeGC()
	return Snapshot{Commit: commit, Tree: tree, Parent: parent, Changed: changed}, nil
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

// maybeGC keeps the shadow repository from growing without bound.
func (s *Snapshotter) maybeGC() {
	s.n++
	if s.n%gcEvery == 0 {
		s.git.run(nil, "gc", "--auto", "--quiet")
	}
}
