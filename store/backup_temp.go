package store

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// A backup is written into its folder as opened once, through no symbolic link (so neither a
// link planted in the path nor one swapped in meanwhile redirects it), to a file that has no name until it is whole (O_TMPFILE): a
// process killed while writing it (kill -9, a power cut) leaves no half copy anywhere, neither
// at the backup's path nor beside it. On a file system that cannot make such a file the copy is
// written to a named one beside the path, removed on every way out but a kill; those a kill
// leaves are named NAME.partial-NONCE and SweepPartialBackups removes them.

// namedBackupTemps makes backups use a named temporary file, as on a file system without
// O_TMPFILE (tests set it to cover that way).
var namedBackupTemps = false

// backupDir is the folder a backup goes to, open, with the backup's name in it.
type backupDir struct {
	d    *os.File
	name string
}

// ErrLinkInPath means a backup's path goes through a symbolic link: one planted in a folder an
// agent can write would send the copy (sealed records included) wherever the link points.
var ErrLinkInPath = errors.New("the path goes through a symbolic link")

// openBackupDir opens path's folder without following any symbolic link on the way (a path
// through one is ErrLinkInPath) and returns it; allow (when not nil) is given the folder's path,
// which is then its real one, and may refuse it. The folder is opened once, component by
// component from / (openat2 with RESOLVE_NO_SYMLINKS where the kernel has it, else openat with
// O_NOFOLLOW at each step), so a link swapped into the path after the check redirects nothing.
func openBackupDir(path string, allow func(dir string) error) (*backupDir, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("%s is not an absolute path", path)
	}
	dir, name := filepath.Split(filepath.Clean(path))
	if name == "" || name == "." || name == ".." {
		return nil, fmt.Errorf("%s names a folder, not a file", path)
	}
	dir = filepath.Clean(dir)
	d, err := openNoLinks(dir)
	if err != nil {
		return nil, err
	}
	if allow != nil {
		if err := allow(dir); err != nil {
			d.Close()
			return nil, err
		}
	}
	return &backupDir{d: d, name: name}, nil
}

// noOpenat2 is set once openat2 was found missing (a kernel before 5.6, or a seccomp filter),
// and in tests to cover the walk.
var noOpenat2 atomic.Bool

// openNoLinks opens the folder at dir (absolute, clean) for reading, refusing a symbolic link
// at any of its components.
func openNoLinks(dir string) (*os.File, error) {
	if !noOpenat2.Load() {
		how := &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
		fd, err := unix.Openat2(unix.AT_FDCWD, dir, how)
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), dir), nil
		case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM):
			noOpenat2.Store(true) // no openat2 here (or a filter refuses it): the walk answers
		case errors.Is(err, unix.ELOOP):
			return nil, linkIn(dir)
		default:
			return nil, &os.PathError{Op: "open", Path: dir, Err: err}
		}
	}
	return walkNoLinks(dir)
}

// walkNoLinks opens dir one component at a time from /, each relative to the folder opened
// before and with O_NOFOLLOW: no component is ever looked up by name twice.
func walkNoLinks(dir string) (*os.File, error) {
	fd, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: "/", Err: err}
	}
	sofar := "/"
	for _, c := range strings.Split(strings.TrimPrefix(dir, "/"), "/") {
		if c == "" {
			continue
		}
		sofar = filepath.Join(sofar, c)
		next, err := unix.Openat(fd, c, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			// A link is ELOOP or ENOTDIR; so is one that was there a moment ago and is a
			// folder again now (swapped back and forth): both are a link in the path.
			var st unix.Stat_t
			if (errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR)) && unix.Fstatat(fd, c, &st, unix.AT_SYMLINK_NOFOLLOW) == nil &&
				(st.Mode&unix.S_IFMT == unix.S_IFLNK || st.Mode&unix.S_IFMT == unix.S_IFDIR) {
				err = ErrLinkInPath
			}
			unix.Close(fd)
			if err == ErrLinkInPath {
				return nil, linkIn(sofar)
			}
			return nil, &os.PathError{Op: "open", Path: sofar, Err: err}
		}
		unix.Close(fd)
		fd = next
	}
	// The O_PATH descriptor cannot be read or synced: reopen the folder itself through it.
	rd, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	unix.Close(fd)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	return os.NewFile(uintptr(rd), dir), nil
}

// linkIn is ErrLinkInPath naming the first component of path that is a symbolic link (as
// seen now: it names the place, the refusal does not depend on it).
func linkIn(path string) error {
	at := path
	for p := path; p != "/" && p != "."; p = filepath.Dir(p) {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			at = p
		}
	}
	return fmt.Errorf("%w: %s is one", ErrLinkInPath, at)
}

// exists reports whether the backup's name is taken in the folder (by anything, a link too).
func (b *backupDir) exists() bool {
	var st unix.Stat_t
	return unix.Fstatat(int(b.d.Fd()), b.name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil
}

// backupTemp is the file a backup is written to before it is linked at its name.
type backupTemp struct {
	f *os.File
	// name is the named file's name in the folder; "" for a file without a name.
	name string
}

// temp opens, readable and writable and 0600 from the start, the file the backup is written
// to: one without a name in the folder, or where the file system makes none, a named one.
func (b *backupDir) temp() (*backupTemp, error) {
	dfd := int(b.d.Fd())
	if !namedBackupTemps {
		fd, err := unix.Openat(dfd, ".", unix.O_RDWR|unix.O_TMPFILE|unix.O_CLOEXEC, 0o600)
		if err == nil {
			return &backupTemp{f: os.NewFile(uintptr(fd), b.name)}, nil
		}
		if !errors.Is(err, unix.EOPNOTSUPP) && !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EINVAL) {
			return nil, &os.PathError{Op: "open a file in", Path: b.d.Name(), Err: err}
		}
	}
	var nonce [6]byte
	rand.Read(nonce[:])
	name := b.name + ".partial-" + hex.EncodeToString(nonce[:])
	fd, err := unix.Openat(dfd, name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, &os.PathError{Op: "create", Path: filepath.Join(b.d.Name(), name), Err: err}
	}
	return &backupTemp{f: os.NewFile(uintptr(fd), name), name: name}, nil
}

// link gives the whole copy the backup's name; it fails, unlike a rename, when the name is
// taken (by a link planted there too, which is not followed).
func (b *backupDir) link(t *backupTemp) error {
	dfd := int(b.d.Fd())
	var err error
	if t.name != "" {
		err = unix.Linkat(dfd, t.name, dfd, b.name, 0)
	} else {
		// AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; the /proc name of the descriptor does not.
		err = unix.Linkat(int(t.f.Fd()), "", dfd, b.name, unix.AT_EMPTY_PATH)
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EPERM) {
			proc := fmt.Sprintf("/proc/self/fd/%d", t.f.Fd())
			err = unix.Linkat(unix.AT_FDCWD, proc, dfd, b.name, unix.AT_SYMLINK_FOLLOW)
		}
	}
	if err != nil {
		return &os.LinkError{Op: "link", Old: "the copy", New: filepath.Join(b.d.Name(), b.name), Err: err}
	}
	return nil
}

// discard closes the temporary file and removes its name, if it has one (once linked, the
// backup's name keeps the file).
func (b *backupDir) discard(t *backupTemp) {
	t.f.Close()
	if t.name != "" {
		unix.Unlinkat(int(b.d.Fd()), t.name, 0)
	}
}

// partialBackup matches the name of a named temporary file a killed backup left.
var partialBackup = regexp.MustCompile(`\.partial-[0-9a-f]{12}$`)

// SweepPartialBackups removes from dir the named temporary files of backups a killed process
// left (only where the file system could not write them without a name), returning how many.
// The caller makes sure no backup into dir runs.
func SweepPartialBackups(dir string) (int, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("sweep partial backups: %w", err)
	}
	n := 0
	for _, e := range ents {
		if !e.Type().IsRegular() || !partialBackup.MatchString(e.Name()) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return n, fmt.Errorf("sweep partial backups: %w", err)
		}
		n++
	}
	return n, nil
}
