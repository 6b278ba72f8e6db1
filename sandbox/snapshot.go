package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// ChangeKind says how a path changed between two snapshots.
type ChangeKind string

// Change kinds.
const (
	Added    ChangeKind = "added"
	Modified ChangeKind = "modified"
	Deleted  ChangeKind = "deleted"
	Renamed  ChangeKind = "renamed"
)

// Change is one changed path; From is set for renames.
type Change struct {
	Path string     // Path is relative to the workspace, slash-separated.
	From string     // From is the old path of a rename.
	Kind ChangeKind // Kind is what happened to the path.
}

// SkippedFile is a path left out of a snapshot, with the reason.
type SkippedFile struct {
	Path   string // Path is relative to the workspace.
	Reason string // Reason says why it was not captured.
}

// Snapshot is one recorded state of a workspace in the shadow repository.
type Snapshot struct {
	Commit  string        // Commit is the shadow commit id.
	Tree    string        // Tree is the git tree id of the workspace contents.
	Parent  string        // Parent is the previous snapshot's commit, empty for the first.
	Changed []Change      // Changed lists paths changed since Parent.
	Skipped []SkippedFile // Skipped lists large files and dependency folders left out.
	// ParentByAnother is set when another Snapshotter of the shadow repository (another
	// session of the workspace) took Parent: Changed is then what changed since that one's
	// snapshot, not since this one's last (see Diff). ParentTree is Parent's tree.
	ParentByAnother bool
	ParentTree      string
}

// SnapshotOptions tune a Snapshotter.
type SnapshotOptions struct {
	// MaxFileSize skips untracked files larger than this; default 10 MiB.
	MaxFileSize int64
	// SkipDirs are directory names never captured; default DefaultSkipDirs.
	SkipDirs []string
	// Alternates are other shadow repositories whose objects this one may use (forks).
	Alternates []string
	// LooseObjectLimit is git's gc.auto for the shadow repository: past it, a background
	// `git gc --auto` packs the loose objects; default 2000.
	LooseObjectLimit int
	// Private are exo's own folders (absolute: its home, its runtime folder). One inside the
	// workspace is never captured, restored or removed, and a shadow index that holds it from
	// before drops it.
	Private []string
}

// DefaultSkipDirs are dependency and build folders left out of snapshots.
var DefaultSkipDirs = []string{"node_modules", ".venv", "venv", "target", "dist", "build", "__pycache__"}

// snapshotRef is the shadow ref holding the chain of snapshots.
const snapshotRef = "refs/exo/head"

// Snapshotter records and restores a workspace in a shadow git repository, with its
// own index file, never touching the workspace's .git, HEAD or index.
type Snapshotter struct {
	git  gitRunner
	opts SnapshotOptions
	mu   sync.Mutex
	// progress, when set, is told how each snapshot advances (OnProgress).
	progress ProgressFunc
	n        int
	// headCommit and headTree cache the snapshot ref when headKnown.
	headCommit, headTree string
	headKnown            bool
	// turn is shared with the other Snapshotters of the shadow repository; seen is the turn
	// this one took last (see takeTurn).
	turn *shadowTurn
	seen uint64
	// id tells this Snapshotter's snapshots from the others' (shadowTurn.writer).
	id     uint64
	gcSlot chan struct{}
	gcRuns sync.WaitGroup
	// closed (under mu) refuses snapshots and restores once Close ran: none may write into the
	// shadow repository while the session's folders are being removed.
	closed bool
	// private are opts.Private inside the workspace, relative to it.
	private []string
	// afterStatus, for tests, runs between git status and staging (where an agent's process
	// can change the workspace).
	afterStatus func()
}

// ShadowDir returns the conventional shadow repository path for a workspace under home.
func ShadowDir(home, workspace string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(workspace)))
	return filepath.Join(home, "shadow", hex.EncodeToString(sum[:8])+".git")
}

// NewSnapshotter opens (creating if needed) the shadow repository at shadowDir for workspace.
func NewSnapshotter(workspace, shadowDir string, opts SnapshotOptions) (*Snapshotter, error) {
	ws, err := filepath.Abs(workspace)
	if err == nil {
		ws, err = filepath.EvalSymlinks(ws)
	}
	if err != nil {
		return nil, fmt.Errorf("open snapshots of %s: %w", workspace, err)
	}
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = 10 << 20
	}
	if opts.LooseObjectLimit <= 0 {
		opts.LooseObjectLimit = defaultLooseObjects
	}
	if opts.SkipDirs == nil {
		opts.SkipDirs = DefaultSkipDirs
	}
	s := &Snapshotter{
		git:    gitRunner{gitDir: shadowDir, workTree: ws, index: filepath.Join(shadowDir, "exo-index")},
		opts:   opts,
		gcSlot: make(chan struct{}, 1),
		turn:   turnOf(shadowDir),
		id:     snapshotterIDs.Add(1),
	}
	s.private = privateRels(ws, opts.Private)
	end := s.takeTurn() // another session's snapshot may hold the index lock that init recovers
	err = s.init()
	end()
	if err != nil {
		return nil, fmt.Errorf("open snapshots of %s: %w", ws, err)
	}
	return s, nil
}

// GitDir returns the shadow repository path.
func (s *Snapshotter) GitDir() string { return s.git.gitDir }

// init creates the shadow repository (recovering one a killed exo left locked) and writes its
// config and excludes.
func (s *Snapshotter) init() error {
	if err := RecoverShadow(s.git.gitDir); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(s.git.gitDir, "HEAD")); err != nil {
		if err := os.MkdirAll(filepath.Dir(s.git.gitDir), 0o700); err != nil {
			return fmt.Errorf("create shadow dir: %w", err)
		}
		bare := gitRunner{workTree: filepath.Dir(s.git.gitDir)}
		if _, err := bare.run(nil, "init", "--quiet", "--bare", s.git.gitDir); err != nil {
			return err
		}
	}
	if err := s.configure(); err != nil {
		return err
	}
	if err := s.dropPrivate(); err != nil {
		return err
	}
	return s.writeExcludes()
}

// configuredFile, in the shadow repository, holds the settings configure last wrote there in
// full; while it matches, opening the repository again runs no git process to set them.
const configuredFile = "exo-configured"

// shadowConfig is the shadow repository's config, in the order configure sets it.
func (s *Snapshotter) shadowConfig() [][2]string {
	return [][2]string{
		{"core.bare", "false"}, {"core.autocrlf", "false"}, {"core.symlinks", "true"},
		{"core.untrackedCache", "true"}, {"core.fsync", "committed"}, {"core.fsyncMethod", "fsync"}, {"core.splitIndex", "true"},
		{"core.quotePath", "false"}, {"gc.auto", strconv.Itoa(s.opts.LooseObjectLimit)}, {"gc.autoDetach", "false"}, {"commit.gpgSign", "false"},
	}
}

// configure sets the shadow repository's config and points its HEAD at the snapshot ref. Each
// setting is a git process (a dozen in all, tens of milliseconds on the path of every new
// session), so it is skipped when configuredFile says the same settings were all written before
// and HEAD still names the ref; configuredFile is written (atomically) only once every setting
// is, so an exo killed half-way configures again.
func (s *Snapshotter) configure() error {
	var want strings.Builder
	for _, kv := range s.shadowConfig() {
		fmt.Fprintf(&want, "%s=%s\n", kv[0], kv[1])
	}
	fmt.Fprintf(&want, "HEAD=%s\n", snapshotRef)
	marker := filepath.Join(s.git.gitDir, configuredFile)
	head, _ := os.ReadFile(filepath.Join(s.git.gitDir, "HEAD"))
	if have, err := os.ReadFile(marker); err == nil && string(have) == want.String() && string(head) == "ref: "+snapshotRef+"\n" {
		return nil
	}
	for _, kv := range s.shadowConfig() {
		if _, err := s.git.run(nil, "config", kv[0], kv[1]); err != nil {
			return err
		}
	}
	if _, err := s.git.run(nil, "symbolic-ref", "HEAD", snapshotRef); err != nil {
		return err
	}
	tmp := marker + ".tmp"
	if err := os.WriteFile(tmp, []byte(want.String()), 0o644); err != nil {
		return fmt.Errorf("write shadow config marker: %w", err)
	}
	if err := os.Rename(tmp, marker); err != nil {
		return fmt.Errorf("write shadow config marker: %w", err)
	}
	return nil
}

// writeExcludes writes the skip folders, the workspace's own info/exclude and any alternates.
func (s *Snapshotter) writeExcludes() error {
	var b strings.Builder
	b.WriteString("# written by exo: dependency and build folders are not snapshotted\n")
	for _, d := range s.opts.SkipDirs {
		fmt.Fprintf(&b, "%s/\n", d)
	}
	for _, p := range s.private {
		fmt.Fprintf(&b, "/%s/\n", p)
	}
	if own, err := readWorkspaceExclude(s.git.workTree); err == nil {
		b.Write(own)
	}
	info := filepath.Join(s.git.gitDir, "info")
	if err := os.MkdirAll(info, 0o755); err != nil {
		return fmt.Errorf("write shadow excludes: %w", err)
	}
	if err := os.WriteFile(filepath.Join(info, "exclude"), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write shadow excludes: %w", err)
	}
	if len(s.opts.Alternates) == 0 {
		return nil
	}
	var alt bytes.Buffer
	for _, a := range s.opts.Alternates {
		fmt.Fprintln(&alt, filepath.Join(a, "objects"))
	}
	if err := os.WriteFile(filepath.Join(s.git.gitDir, "objects", "info", "alternates"), alt.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write shadow alternates: %w", err)
	}
	return nil
}

// ErrSnapshotterClosed is the error of a snapshot or restore asked of a closed Snapshotter.
var ErrSnapshotterClosed = errors.New("the workspace's snapshots are closed (the session is being removed or exo is stopping)")
