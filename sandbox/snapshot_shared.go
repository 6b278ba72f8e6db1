package sandbox

import (
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// Sessions of one workspace share its shadow repository (ShadowDir is per workspace), each
// with a Snapshotter of its own: one session's snapshot moves the ref and rewrites the index
// the others also use. So the Snapshotters of one shadow repository in this process take turns
// (git's index.lock would otherwise fail one of two at once), and each forgets the ref it
// cached when another wrote since (a stale cache made a snapshot equal to the workspace look
// unchanged, or its update-ref fail).

// shadowTurn is the turn-taking of one shadow repository's Snapshotters.
type shadowTurn struct {
	mu sync.Mutex
	// gen counts the turns taken; a Snapshotter whose last turn is not the latest was
	// preceded by another.
	gen uint64
	// writer is the id of the Snapshotter that moved the ref last in this process (0: none).
	writer uint64
}

// snapshotterIDs numbers the Snapshotters of this process.
var snapshotterIDs atomic.Uint64

// byAnother reports whether the latest snapshot, parent, was taken by another Snapshotter of
// the shadow repository; call it in a turn.
func (s *Snapshotter) byAnother(parent string) bool {
	return parent != "" && s.turn.writer != 0 && s.turn.writer != s.id
}

// shadowTurns holds one shadowTurn per shadow repository (its cleaned, resolved path).
var shadowTurns sync.Map // string → *shadowTurn

// turnOf returns the turn-taking of the shadow repository at gitDir.
func turnOf(gitDir string) *shadowTurn {
	key := filepath.Clean(gitDir)
	if real, err := filepath.EvalSymlinks(key); err == nil {
		key = real
	}
	v, _ := shadowTurns.LoadOrStore(key, new(shadowTurn))
	return v.(*shadowTurn)
}

// takeTurn waits for the shadow repository's other Snapshotters and drops the cached ref if
// one of them went since this one's last turn; the function it returns ends the turn. Call
// it with s.mu held.
func (s *Snapshotter) takeTurn() func() {
	t := s.turn
	t.mu.Lock()
	if t.gen != s.seen {
		s.headKnown = false
	}
	return func() {
		t.gen++
		s.seen = t.gen
		t.mu.Unlock()
	}
}

// Diff lists the paths changed between two snapshot commits (renames detected): what a
// session's log records when another session sharing the shadow repository took a snapshot
// between two of its own.
func (s *Snapshotter) Diff(from, to string) ([]Change, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrSnapshotterClosed
	}
	defer s.takeTurn()()
	ch, err := s.diff(from, to)
	if err != nil {
		return nil, fmt.Errorf("changes from %s to %s: %w", from, to, err)
	}
	return ch, nil
}
