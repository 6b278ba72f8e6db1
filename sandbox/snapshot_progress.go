package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"
)

// Progress is how a snapshot advances: Done of Total files staged (Total is -1 while the work
// tree is still being scanned, the first report as a snapshot starts); Finished is the last
// report of each snapshot, whatever happened.
type Progress struct {
	Done, Total int
	Finished    bool
}

// ProgressFunc is told how each snapshot advances.
type ProgressFunc func(Progress)

// progressEvery is the least time between two progress calls while files are staged.
const progressEvery = 100 * time.Millisecond

// OnProgress sets the function told how each snapshot advances (nil: none).
func (s *Snapshotter) OnProgress(fn ProgressFunc) {
	s.mu.Lock()
	s.progress = fn
	s.mu.Unlock()
}

// report calls the progress function, if any.
func (s *Snapshotter) report(done, total int) {
	if s.progress != nil {
		s.progress(Progress{Done: done, Total: total})
	}
}

// finished tells the progress function a snapshot ended.
func (s *Snapshotter) finished(done int) {
	if s.progress != nil {
		s.progress(Progress{Done: done, Total: done, Finished: true})
	}
}

// updateIndex stages paths (NUL-separated) in the shadow index, counting them for the
// progress function as git reports each one (--verbose).
func (s *Snapshotter) updateIndex(paths *bytes.Buffer, total int) error {
	if s.progress == nil {
		_, err := s.git.run(paths, "update-index", "--add", "--remove", "--replace", "-z", "--stdin")
		return err
	}
	s.report(0, total)
	cw := &lineCounter{total: total, fn: s.progress, last: time.Now()}
	args := []string{"update-index", "--verbose", "--add", "--remove", "--replace", "-z", "--stdin"}
	cmd := s.git.gitCommand(args...)
	cmd.Stdin, cmd.Stdout = paths, cw
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := s.git.runGit(cmd, args[0]); err != nil {
		return fmt.Errorf("git update-index: %w: %s", err, strings.TrimSpace(errb.String()))
	}
	s.report(total, total)
	return nil
}

// lineCounter counts the lines git update-index --verbose prints (one per path staged).
type lineCounter struct {
	total, n int
	fn       ProgressFunc
	last     time.Time
}

var _ io.Writer = (*lineCounter)(nil)

// Write counts lines and reports at most every progressEvery.
func (w *lineCounter) Write(p []byte) (int, error) {
	w.n += bytes.Count(p, []byte{'\n'})
	if now := time.Now(); now.Sub(w.last) >= progressEvery {
		w.last = now
		w.fn(Progress{Done: min(w.n, w.total), Total: w.total})
	}
	return len(p), nil
}
