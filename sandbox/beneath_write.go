package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"golang.org/x/sys/unix"
)

// MkdirAll creates rel and its missing parents with mode perm; an existing link on the way
// is refused, never followed.
func (d *Dir) MkdirAll(rel string, perm fs.FileMode) error {
	fd, err := d.mkdirAll(rel, perm)
	if err != nil {
		return err
	}
	unix.Close(fd)
	return nil
}

// mkdirAll creates rel like MkdirAll and returns an O_PATH descriptor of it.
func (d *Dir) mkdirAll(rel string, perm fs.FileMode) (int, error) {
	rel, err := cleanRel(rel)
	if err != nil {
		return -1, err
	}
	if fd, err := openAt(d.fd, rel, unix.O_PATH|unix.O_DIRECTORY, 0); err == nil || rel == "." {
		return fd, err
	}
	cur, err := unix.Dup(d.fd)
	if err != nil {
		return -1, fmt.Errorf("mkdir %s: %w", rel, err)
	}
	for _, p := range strings.Split(rel, "/") {
		if err := unix.Mkdirat(cur, p, uint32(perm.Perm())); err != nil && err != unix.EEXIST {
			unix.Close(cur)
			return -1, pathErr("mkdir", rel, err)
		}
		next, err := unix.Openat(cur, p, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			err = linkErr(cur, p, err)
		}
		unix.Close(cur)
		if err != nil {
			return -1, pathErr("mkdir", rel, err)
		}
		cur = next
	}
	return cur, nil
}

// WriteFile replaces rel with data, creating missing parent folders. The new content is
// written to a fresh file beside it and renamed over it, so a link or a hard link planted at
// rel is replaced rather than written through. An existing regular file keeps its permission
// bits (a script stays executable); a new one gets perm. Set-id bits are never written.
func (d *Dir) WriteFile(rel string, data []byte, perm fs.FileMode) error {
	rel, err := cleanRel(rel)
	if err != nil {
		return err
	}
	dir, base := pathSplit(rel)
	pfd, err := d.mkdirAll(dir, 0o755)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	mode := uint32(perm.Perm())
	var st unix.Stat_t
	if err := unix.Fstatat(pfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil {
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
			mode = st.Mode & 0o777
		case unix.S_IFDIR:
			return &fs.PathError{Op: "write", Path: rel, Err: unix.EISDIR}
		default:
			return fmt.Errorf("write %s: %w", rel, ErrUnsafePath)
		}
	}
	return replaceAt(pfd, base, rel, func(tmp int) error {
		if err := writeAll(tmp, data); err != nil {
			return err
		}
		return unix.Fchmod(tmp, mode)
	})
}

// replaceAt creates a temporary file in the directory pfd, lets fill write it and renames it
// over name; on failure the temporary file is removed.
func replaceAt(pfd int, name, rel string, fill func(fd int) error) error {
	tmp := ".exo-write-" + newNonce()
	fd, err := unix.Openat(pfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return pathErr("write", rel, err)
	}
	err = fill(fd)
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(pfd, tmp, pfd, name)
	}
	if err != nil {
		unix.Unlinkat(pfd, tmp, 0)
		return pathErr("write", rel, err)
	}
	return nil
}

// writeAll writes all of data to fd.
func writeAll(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			return err
		}
		data = data[n:]
	}
	return nil
}

// Symlink makes rel a symbolic link to target, replacing whatever rel was (not a folder).
func (d *Dir) Symlink(target, rel string) error {
	rel, err := cleanRel(rel)
	if err != nil {
		return err
	}
	dir, base := pathSplit(rel)
	pfd, err := d.mkdirAll(dir, 0o755)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	tmp := ".exo-link-" + newNonce()
	if err := unix.Symlinkat(target, pfd, tmp); err != nil {
		return pathErr("symlink", rel, err)
	}
	if err := unix.Renameat(pfd, tmp, pfd, base); err != nil {
		unix.Unlinkat(pfd, tmp, 0)
		return pathErr("symlink", rel, err)
	}
	return nil
}

// RemoveAll removes rel and, when it is a folder, everything beneath it; links are removed,
// never followed. A missing rel is not an error.
func (d *Dir) RemoveAll(rel string) error {
	pfd, base, err := d.parent(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	return pathErr("remove", rel, removeAllAt(pfd, base, 0))
}

// maxRemoveDepth bounds the recursion of removeAllAt.
const maxRemoveDepth = 512

// removeAllAt removes name in the directory dirfd, emptying it first when it is a folder.
func removeAllAt(dirfd int, name string, depth int) error {
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || err == unix.ENOENT {
		return nil
	}
	if err != unix.EISDIR && err != unix.EPERM {
		return err
	}
	if depth > maxRemoveDepth {
		return unix.ELOOP
	}
	sub, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if err == unix.ENOENT {
			return nil
		}
		return err
	}
	names, err := readNames(sub)
	for _, n := range names {
		if rerr := removeAllAt(sub, n, depth+1); rerr != nil && err == nil {
			err = rerr
		}
	}
	unix.Close(sub)
	if err != nil {
		return err
	}
	if err := unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR); err != nil && err != unix.ENOENT {
		return err
	}
	return nil
}

// readNames lists a directory descriptor's entry names (without "." and "..").
func readNames(fd int) ([]string, error) {
	var names []string
	buf := make([]byte, 32<<10)
	for {
		n, err := unix.Getdents(fd, buf)
		if err != nil {
			return names, err
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}

// RemoveEmptyParents removes the folders leading to rel, deepest first, while they are empty.
func (d *Dir) RemoveEmptyParents(rel string) {
	rel, err := cleanRel(rel)
	for err == nil && strings.Contains(rel, "/") {
		rel, _ = pathSplit(rel)
		pfd, base, perr := d.parent(rel)
		if perr != nil {
			return
		}
		err = unix.Unlinkat(pfd, base, unix.AT_REMOVEDIR)
		unix.Close(pfd)
	}
}

// ReplaceFile makes rel a regular file with r's content and exactly the permission bits perm
// (set-id bits dropped), creating missing parent folders; a file or link at rel is replaced,
// never written through.
func (d *Dir) ReplaceFile(rel string, r io.Reader, perm fs.FileMode) error {
	rel, err := cleanRel(rel)
	if err != nil {
		return err
	}
	dir, base := pathSplit(rel)
	pfd, err := d.mkdirAll(dir, 0o755)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	return replaceAt(pfd, base, rel, func(fd int) error {
		if _, err := io.Copy(fdWriter(fd), r); err != nil {
			return err
		}
		return unix.Fchmod(fd, uint32(perm.Perm()))
	})
}

// fdWriter writes to a raw file descriptor.
type fdWriter int

// Write writes all of p.
func (w fdWriter) Write(p []byte) (int, error) {
	if err := writeAll(int(w), p); err != nil {
		return 0, err
	}
	return len(p), nil
}
