package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"

	"golang.org/x/sys/unix"

	"exo/store/failpoint"
)

// copyStats counts how files were copied; skip are relative paths never copied (exo's own
// folders inside the workspace).
type copyStats struct {
	reflinked, copied int
	skip              []string
}

// kind names the copy method used overall.
func (c copyStats) kind() string {
	if c.copied == 0 && c.reflinked > 0 {
		return "reflink"
	}
	return "copy"
}

// maxCopyDepth bounds how deep copyTree descends.
const maxCopyDepth = 256

// copyTree copies the directory src to dst (which must not exist), preserving modes and
// symlinks; regular files are reflinked where the filesystem can, else copied. Hard
// links are never used: siblings would then share content and clobber each other. src may
// be changing under an agent's hands: every read stays beneath src and every write beneath
// dst, and no link is followed, so a folder swapped for a link is refused, not copied from.
func copyTree(src, dst string, skip []string) (copyStats, error) {
	st := copyStats{skip: skip}
	from, err := OpenDir(src)
	if err != nil {
		return st, fmt.Errorf("copy %s: %w", src, err)
	}
	defer from.Close()
	fi, err := from.Lstat(".")
	if err != nil {
		return st, fmt.Errorf("copy %s: %w", src, err)
	}
	if err := os.Mkdir(dst, fi.Mode().Perm()|0o700); err != nil {
		return st, fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	to, err := OpenDir(dst)
	if err != nil {
		return st, fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	defer to.Close()
	if err := copyDirAt(from, to, ".", &st, 0); err != nil {
		return st, fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return st, nil
}

// copyDirAt copies the contents of the folder rel of from into the same folder of to.
func copyDirAt(from, to *Dir, rel string, st *copyStats, depth int) error {
	if depth > maxCopyDepth {
		return fmt.Errorf("%s: folders nested over %d deep", rel, maxCopyDepth)
	}
	ents, err := from.ReadDir(rel)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if IsPrivate(path.Join(rel, e.Name()), st.skip) {
			continue
		}
		if err := copyEntryAt(from, to, path.Join(rel, e.Name()), e, st, depth); err != nil {
			return err
		}
	}
	return nil
}

// copyEntryAt copies one directory entry (a folder with its contents).
func copyEntryAt(from, to *Dir, rel string, e fs.DirEntry, st *copyStats, depth int) error {
	info, err := e.Info()
	if err != nil {
		return err
	}
	switch {
	case e.IsDir():
		if err := to.MkdirAll(rel, info.Mode().Perm()|0o700); err != nil {
			return err
		}
		return copyDirAt(from, to, rel, st, depth+1)
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := from.Readlink(rel)
		if err != nil {
			return err
		}
		return to.Symlink(target, rel)
	case info.Mode().IsRegular():
		return copyFileAt(from, to, rel, info.Mode().Perm(), st)
	default:
		return nil // sockets, fifos and devices are not workspace content.
	}
}

// copyFileAt reflinks or copies one regular file into a new file of the same mode.
func copyFileAt(from, to *Dir, rel string, mode fs.FileMode, st *copyStats) error {
	failpoint.Hit("clone.copy-file") // "clone.copy-file#N" kills exo before the Nth file
	in, err := from.Open(rel)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := to.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if err := out.Chmod(mode); err != nil {
		out.Close()
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

// replaceWith makes rel in to a copy of rel in from (file, symlink or folder), or removes it
// when from has no rel.
func replaceWith(from, to *Dir, rel string, st *copyStats) error {
	info, err := from.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return to.RemoveAll(rel)
	}
	if err != nil {
		return err
	}
	if err := to.RemoveAll(rel); err != nil {
		return err
	}
	if dir, _ := pathSplit(path.Clean(rel)); dir != "." {
		if err := to.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return copyEntryAt(from, to, rel, fs.FileInfoToDirEntry(info), st, 0)
}
