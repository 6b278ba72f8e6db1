package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"exo/internal/failpoint"
)

// copyStats counts how files were copied.
type copyStats struct{ reflinked, copied int }

// kind names the copy method used overall.
func (c copyStats) kind() string {
	if c.copied == 0 && c.reflinked > 0 {
		return "reflink"
	}
	return "copy"
}

// copyTree copies the directory src to dst (which must not exist), preserving modes and
// symlinks; regular files are reflinked where the filesystem can, else copied. Hard
// links are never used: siblings would then share content and clobber each other.
func copyTree(src, dst string) (copyStats, error) {
	var st copyStats
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		return copyEntry(p, filepath.Join(dst, rel), d, &st)
	})
	if err != nil {
		return st, fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return st, nil
}

// copyEntry copies one directory entry.
func copyEntry(src, dst string, d fs.DirEntry, st *copyStats) error {
	info, err := d.Info()
	if err != nil {
		return err
	}
	switch {
	case d.IsDir():
		return os.MkdirAll(dst, info.Mode().Perm()|0o700)
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return os.Symlink(target, dst)
	case info.Mode().IsRegular():
		return copyFile(src, dst, info.Mode().Perm(), st)
	default:
		return nil // sockets, fifos and devices are not workspace content.
	}
}

// copyFile reflinks or copies one regular file.
func copyFile(src, dst string, mode fs.FileMode, st *copyStats) error {
	failpoint.Hit("clone.copy-file") // "clone.copy-file#N" kills exo before the Nth file
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if unix.IoctlFileClone(int(out.Fd()), int(in.Fd())) == nil {
		st.reflinked++
		return out.Close()
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	st.copied++
	return out.Close()
}

// replaceWith makes dst a copy of src (file, symlink or directory), or removes dst when src is gone.
func replaceWith(src, dst string, st *copyStats) error {
	info, err := os.Lstat(src)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.RemoveAll(dst); err != nil {
			return err
		}
		return nil
	}
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if info.IsDir() {
		sub, err := copyTree(src, dst)
		st.reflinked, st.copied = st.reflinked+sub.reflinked, st.copied+sub.copied
		return err
	}
	return copyEntry(src, dst, fs.FileInfoToDirEntry(info), st)
}
