package store

import (
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
)

// fileID identifies the database file this store has open (device and inode).
type fileID struct{ dev, ino uint64 }

// fileState is what the store knows of its file: which one, and how long bbolt left it.
type fileState struct {
	id   fileID
	size atomic.Int64
}

// idOf reads the identity of an open or named file.
func idOf(fi os.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino}, true
}

// rememberFile records which file the store opened, so a file removed or replaced under a
// long-lived process (the daemon) is noticed before the next write.
func (s *Store) rememberFile() {
	if fi, err := os.Stat(s.Path()); err == nil { // the home lock is held: nobody swaps it meanwhile
		s.file.id, _ = idOf(fi)
		s.file.size.Store(fi.Size())
	}
}

// noteSize records the file's length after a commit (bbolt only ever grows it).
func (s *Store) noteSize() {
	if s.db == nil {
		return
	}
	if fi, err := os.Stat(s.Path()); err == nil {
		s.file.size.Store(fi.Size())
	}
}

// checkFile fails when exo.db is no longer the file this store has open: it was deleted (the
// writes would go to a ghost) or replaced (a backup restored). The store is then marked
// faulted, so the process closes it and the next one opens what is there now.
func (s *Store) checkFile() error {
	if s.file.id == (fileID{}) {
		return nil
	}
	fi, err := os.Stat(s.Path())
	now, ok := fileID{}, false
	if err == nil {
		now, ok = idOf(fi)
	}
	if err == nil && ok && now == s.file.id && fi.Size() >= s.file.size.Load() {
		return nil
	}
	why := "it was removed"
	switch {
	case err == nil && now == s.file.id:
		why = fmt.Sprintf("it was cut from %d to %d bytes", s.file.size.Load(), fi.Size())
	case err == nil:
		why = "another file replaced it"
	}
	s.faulted.Store(true)
	cause := fmt.Errorf("%s is not the file exo opened: %s while exo had it open: %w (%s)", s.Path(), why, ErrCorrupt, wayOut)
	s.markDamaged(cause)
	return cause
}
