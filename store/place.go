package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// checkPlace refuses an exo.db that is a symbolic link out of EXO_HOME (or to nothing): agents'
// sandboxes hide EXO_HOME, not the folder such a link points into, and a link to nothing would
// have a new database created wherever it points. A link within EXO_HOME is followed.
func checkPlace(home, path string) error {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil // absent (created in place) or not a link: judged when opened
	}
	link, _ := os.Readlink(path)
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("open %s: it is a symbolic link to %s, which cannot be followed (%v): %w (replace the link with the database file itself, or remove it to start afresh)",
			path, link, err, ErrForeign)
	}
	root, err := filepath.EvalSymlinks(home)
	if err == nil {
		root, err = filepath.Abs(root)
	}
	if err == nil {
		target, err = filepath.Abs(target) // a relative home and an absolute link compare alike
	}
	if err != nil {
		return fmt.Errorf("open %s: resolve %s: %w", path, home, err)
	}
	if rel, err := filepath.Rel(root, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("open %s: it is a symbolic link to %s, outside %s: %w (exo keeps its database inside EXO_HOME, which agents' sandboxes hide: move %s in place of the link, or set EXO_HOME to its folder)",
			path, target, home, ErrForeign, target)
	}
	return nil
}

// fileReadOnly returns why exo.db (present) cannot be written though its home can, or nil: the
// store then opens for reading, as for a read-only home, and every write is refused saying so.
func fileReadOnly(path string) error {
	err := unix.Access(path, unix.W_OK)
	switch {
	case err == nil, errors.Is(err, unix.ENOENT):
		return nil
	case errors.Is(err, unix.EROFS):
		return fmt.Errorf("%s is on a read-only file system: %w", path, ErrReadOnly)
	case errors.Is(err, unix.EPERM):
		return fmt.Errorf("%s may not be written (it is immutable: chattr -i it to carry on): %w", path, ErrReadOnly)
	case errors.Is(err, unix.EACCES):
		return fmt.Errorf("%s may not be written by this user (chmod u+w it, as its owner, to carry on): %w", path, ErrReadOnly)
	}
	return nil
}

// kindOf names what a file that is not a regular one is.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}
