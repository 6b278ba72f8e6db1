package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// homeLock is an exclusive advisory lock on EXO_HOME that records the holder's pid.
type homeLock struct {
	f *os.File
	// shared marks a reader's lock on a home it cannot write: the file is not emptied on release.
	shared bool
}

// lockHome takes EXO_HOME's lock file or fails at once naming the process that holds it.
func lockHome(home string) (*homeLock, error) {
	path := filepath.Join(home, "exo.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		holder := readHolder(f)
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("exo is already running (%s) on %s: %w", holder, home, ErrLocked)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &homeLock{f: f}, nil
}

// readHolder describes the pid written in a lock file.
func readHolder(f *os.File) string {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	pid := strings.TrimSpace(string(buf[:n]))
	if _, err := strconv.Atoi(pid); err != nil {
		return "pid unknown"
	}
	return "pid " + pid
}

// release drops the lock.
func (l *homeLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	if !l.shared {
		_ = l.f.Truncate(0)
	}
	err := l.f.Close()
	l.f = nil
	return err
}
