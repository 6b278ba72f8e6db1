package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// homeReadOnly reports why home cannot be written (nil when it can): a read-only file system,
// or a folder this user may not write. A home that does not exist yet is writable if it can be
// made.
func homeReadOnly(home string) error {
	err := unix.Access(home, unix.W_OK)
	switch {
	case err == nil, errors.Is(err, unix.ENOENT):
		return nil
	case errors.Is(err, unix.EROFS):
		return fmt.Errorf("%s is on a read-only file system: %w", home, ErrReadOnly)
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		return fmt.Errorf("%s may not be written by this user: %w", home, ErrReadOnly)
	}
	return nil
}

// lockHomeShared takes EXO_HOME's lock for reading when the home cannot be written: a shared
// lock on the lock file if there is one (no writer can hold it then), nothing otherwise.
func lockHomeShared(home string) (*homeLock, error) {
	path := filepath.Join(home, "exo.lock")
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return &homeLock{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB); err != nil {
		holder := readHolder(f)
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("exo is already running (%s) on %s: %w", holder, home, ErrLocked)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &homeLock{f: f, shared: true}, nil
}

// ReadOnly returns why the store refuses writes because its home cannot be written, or nil.
func (s *Store) ReadOnly() error { return s.readOnly }
