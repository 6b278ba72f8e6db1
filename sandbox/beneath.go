package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// ErrUnsafePath is returned when a path below a confined folder goes through a symbolic
// link, "..", or out of the folder: exo (unsandboxed) never follows such a path, since the
// agent may have planted the link, even while exo was using the path.
var ErrUnsafePath = errors.New("path goes through a symbolic link or out of its folder")

// Dir is an open directory that exo's own (host-side) file operations stay beneath. Every
// path is relative to it and resolved by the kernel with openat2(RESOLVE_BENEATH |
// RESOLVE_NO_SYMLINKS), or where openat2 is missing by a walk that opens one component at a
// time with O_NOFOLLOW; so no symbolic link, "..", or directory swapped for a link while the
// operation runs can lead outside. Symbolic links themselves are read, created and removed,
// never followed.
type Dir struct {
	fd   int
	path string
}

// resolveBeneath are the openat2 resolve flags of every Dir operation.
const resolveBeneath = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// OpenDir opens path (trusted: it is followed as given) as the folder to stay beneath.
func OpenDir(path string) (*Dir, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return &Dir{fd: fd, path: path}, nil
}

// Close releases the directory.
func (d *Dir) Close() error { return unix.Close(d.fd) }

// Path returns the directory's path as it was opened.
func (d *Dir) Path() string { return d.path }

var (
	openat2Once sync.Once
	openat2OK   bool
	// walkOnly forces the component walk (tests exercise the fallback with it).
	walkOnly bool
)

// HasOpenat2 reports whether the kernel resolves paths with openat2 (else a walk is used).
func HasOpenat2() bool {
	openat2Once.Do(func() {
		fd, err := unix.Openat2(unix.AT_FDCWD, "/", &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: resolveBeneath &^ unix.RESOLVE_BENEATH})
		if err == nil {
			unix.Close(fd)
			openat2OK = true
		}
	})
	return openat2OK && !walkOnly
}

// cleanRel checks a relative path and returns it cleaned ("." for the folder itself).
func cleanRel(rel string) (string, error) {
	rel = filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel)))
	if rel == "" || rel == "." {
		return ".", nil
	}
	if strings.HasPrefix(rel, "/") || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("%s: %w", rel, ErrUnsafePath)
	}
	return rel, nil
}

// openAt opens rel beneath dirfd with flags (O_CLOEXEC and O_NOFOLLOW added), refusing links.
func openAt(dirfd int, rel string, flags int, mode uint32) (int, error) {
	rel, err := cleanRel(rel)
	if err != nil {
		return -1, err
	}
	if !HasOpenat2() {
		return walkOpen(dirfd, rel, flags, mode)
	}
	how := &unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC | unix.O_NOFOLLOW), Resolve: resolveBeneath}
	if flags&(unix.O_CREAT|unix.O_TMPFILE) != 0 {
		how.Mode = uint64(mode)
	}
	for range 8 { // EAGAIN: a rename elsewhere raced the resolution; the kernel asks to retry.
		fd, err := unix.Openat2(dirfd, rel, how)
		if err == unix.ENOTDIR && finalIsLink(dirfd, rel) {
			err = unix.ELOOP
		}
		if err != unix.EAGAIN {
			return fd, pathErr("open", rel, err)
		}
	}
	return -1, pathErr("open", rel, unix.EAGAIN)
}

// walkOpen is openAt without openat2: each directory component is opened with
// O_NOFOLLOW|O_DIRECTORY relative to the previous one, and the last with O_NOFOLLOW.
func walkOpen(dirfd int, rel string, flags int, mode uint32) (int, error) {
	if rel == "." {
		fd, err := unix.Openat(dirfd, ".", flags|unix.O_CLOEXEC, mode)
		return fd, pathErr("open", rel, err)
	}
	parts := strings.Split(rel, "/")
	cur := dirfd
	defer func() {
		if cur != dirfd {
			unix.Close(cur)
		}
	}()
	for _, p := range parts[:len(parts)-1] {
		next, err := unix.Openat(cur, p, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, pathErr("open", rel, linkErr(cur, p, err))
		}
		if cur != dirfd {
			unix.Close(cur)
		}
		cur = next
	}
	last := parts[len(parts)-1]
	fd, err := unix.Openat(cur, last, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode)
	if err != nil {
		return -1, pathErr("open", rel, linkErr(cur, last, err))
	}
	return fd, nil
}

// linkErr turns the error of opening name as a directory into ELOOP when name is a link.
func linkErr(dirfd int, name string, err error) error {
	if err != unix.ENOTDIR {
		return err
	}
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return unix.ELOOP
	}
	return err
}

// finalIsLink reports whether rel (beneath dirfd, reached without links) is itself a link.
func finalIsLink(dirfd int, rel string) bool {
	fd, err := unix.Openat2(dirfd, rel, &unix.OpenHow{Flags: unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC, Resolve: resolveBeneath})
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

// pathErr wraps a system call error; a refused link or escape becomes ErrUnsafePath.
func pathErr(op, rel string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV):
		return fmt.Errorf("%s %s: %w", op, rel, ErrUnsafePath)
	case errors.Is(err, ErrUnsafePath):
		return err
	}
	return &fs.PathError{Op: op, Path: rel, Err: err}
}

// file wraps an fd opened beneath d as an *os.File named by its full path.
func (d *Dir) file(fd int, rel string) *os.File {
	return os.NewFile(uintptr(fd), filepath.Join(d.path, filepath.FromSlash(rel)))
}

// Open opens rel for reading (a file or a directory).
func (d *Dir) Open(rel string) (*os.File, error) { return d.OpenFile(rel, os.O_RDONLY, 0) }

// OpenFile opens rel with the given flags and, when creating, mode. Only a regular file or a
// folder is opened: a named pipe, socket or device is refused with ErrNotRegular, without
// blocking (the open itself is non-blocking and never makes a terminal exo's), since the agent
// can put one where exo expects a file.
func (d *Dir) OpenFile(rel string, flag int, perm fs.FileMode) (*os.File, error) {
	fd, err := openAt(d.fd, rel, flag|unix.O_NONBLOCK|unix.O_NOCTTY, uint32(perm.Perm()))
	if errors.Is(err, unix.ENXIO) { // a socket, or a pipe opened for writing that nobody reads
		return nil, fmt.Errorf("open %s: %w (a socket or a named pipe)", rel, ErrNotRegular)
	}
	if err != nil {
		return nil, err
	}
	if err := regularOrDir(fd, rel, flag); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return d.file(fd, rel), nil
}

// ErrNotRegular is returned when a path exo opens is a named pipe, socket or device rather
// than a regular file (or a folder): reading one could block exo or never end.
var ErrNotRegular = errors.New("not a regular file")

// regularOrDir checks that fd is a regular file (or a folder) and gives it back the blocking
// mode the caller asked for.
func regularOrDir(fd int, rel string, flag int) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &fs.PathError{Op: "stat", Path: rel, Err: err}
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG, unix.S_IFDIR:
	default:
		return fmt.Errorf("open %s: %w (%s)", rel, ErrNotRegular, kindName(st.Mode))
	}
	if flag&unix.O_NONBLOCK == 0 {
		if err := unix.SetNonblock(fd, false); err != nil {
			return &fs.PathError{Op: "open", Path: rel, Err: err}
		}
	}
	return nil
}

// kindName names a non-regular file type for an error message.
func kindName(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFIFO:
		return "a named pipe"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFCHR:
		return "a character device"
	case unix.S_IFBLK:
		return "a block device"
	}
	return "not a file"
}

// ReadFile reads the whole of rel.
func (d *Dir) ReadFile(rel string) ([]byte, error) { return d.ReadFileLimit(rel, -1) }

// ErrTooLarge is returned by ReadFileMax for a file over its bound.
var ErrTooLarge = errors.New("file is too large")

// ReadFileMax reads the whole regular file rel, refusing one over max bytes with ErrTooLarge:
// for files exo parses (settings, instructions), where a cut would change their meaning.
func (d *Dir) ReadFileMax(rel string, max int64) ([]byte, error) {
	b, err := d.ReadFileLimit(rel, max+1)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("read %s: %w (over %d bytes)", rel, ErrTooLarge, max)
	}
	return b, nil
}

// ReadFileLimit reads at most max bytes of rel (all of it when max < 0).
func (d *Dir) ReadFileLimit(rel string, max int64) ([]byte, error) {
	f, err := d.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if max >= 0 {
		r = io.LimitReader(f, max)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	return b, nil
}

// Lstat describes rel without following it.
func (d *Dir) Lstat(rel string) (fs.FileInfo, error) {
	fd, err := openAt(d.fd, rel, unix.O_PATH, 0)
	if err != nil {
		return nil, err
	}
	f := d.file(fd, rel)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", rel, err)
	}
	return fi, nil
}

// parent opens the directory holding rel and returns it with rel's last component.
func (d *Dir) parent(rel string) (int, string, error) {
	rel, err := cleanRel(rel)
	if err != nil {
		return -1, "", err
	}
	if rel == "." {
		return -1, "", fmt.Errorf("%s: the folder itself is not a file", d.path)
	}
	dir, base := pathSplit(rel)
	fd, err := openAt(d.fd, dir, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return -1, "", err
	}
	return fd, base, nil
}

// pathSplit splits a clean slash path into its directory ("." at the top) and last name.
func pathSplit(rel string) (string, string) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return ".", rel
	}
	return rel[:i], rel[i+1:]
}

// Readlink returns the target of the symbolic link rel.
func (d *Dir) Readlink(rel string) (string, error) {
	pfd, base, err := d.parent(rel)
	if err != nil {
		return "", err
	}
	defer unix.Close(pfd)
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(pfd, base, buf)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: rel, Err: err}
	}
	return string(buf[:n]), nil
}

// ReadDir lists rel, sorted by name, describing each entry without following it.
func (d *Dir) ReadDir(rel string) ([]fs.DirEntry, error) {
	f, err := d.OpenFile(rel, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", rel, err)
	}
	out := make([]fs.DirEntry, 0, len(names))
	for _, n := range names {
		var st unix.Stat_t
		if unix.Fstatat(int(f.Fd()), n, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue // removed since it was listed.
		}
		out = append(out, statEntry{name: n, st: st})
	}
	sortEntries(out)
	return out, nil
}
