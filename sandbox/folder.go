package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Folder is a folder exo itself (unsandboxed) reads files from: skills, custom commands,
// settings. One inside an agent's workspace is hostile: every access stays beneath the
// workspace and follows no link, even one swapped in while exo reads. One outside it is the
// user's own and is read as it is (links followed: dotfile managers link such folders). In
// both, only regular files are read, and within a bound.
type Folder struct {
	Path      string // Path is the folder.
	Workspace string // Workspace, when set, holds Path and is what reads stay beneath.
}

// FolderIn returns the Folder for path: hostile when path lies in workspace (which may be "").
func FolderIn(workspace, path string) Folder {
	if workspace != "" && within(filepath.Clean(workspace), filepath.Clean(path)) {
		return Folder{Path: path, Workspace: workspace}
	}
	return Folder{Path: path}
}

// Open returns the folder as an fs.FS and a function that releases it.
func (f Folder) Open() (fs.FS, func(), error) {
	if f.Workspace == "" {
		return os.DirFS(f.Path), func() {}, nil
	}
	rel, err := filepath.Rel(filepath.Clean(f.Workspace), filepath.Clean(f.Path))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, nil, fmt.Errorf("%s: %w", f.Path, ErrOutsideWorkspace)
	}
	d, err := OpenDir(f.Workspace)
	if err != nil {
		return nil, nil, err
	}
	sub, err := fs.Sub(d.FS(), filepath.ToSlash(rel))
	if err != nil {
		d.Close()
		return nil, nil, fmt.Errorf("open %s: %w", f.Path, err)
	}
	return sub, func() { d.Close() }, nil
}

// ReadFile reads the regular file rel of the folder, refusing one over max bytes.
func (f Folder) ReadFile(rel string, max int64) ([]byte, error) {
	fsys, done, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer done()
	return ReadFileFS(fsys, rel, max)
}

// ReadFileFS reads name from fsys: only a regular file (a named pipe, socket, device or link is
// refused with ErrNotRegular, never opened), of at most max bytes (ErrTooLarge beyond).
func ReadFileFS(fsys fs.FS, name string, max int64) ([]byte, error) {
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: %w (%s)", name, ErrNotRegular, fi.Mode().Type())
	}
	fl, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer fl.Close()
	if fi, err = fl.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: %w", name, ErrNotRegular)
	}
	b, err := io.ReadAll(io.LimitReader(fl, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("read %s: %w (over %d bytes)", name, ErrTooLarge, max)
	}
	return b, nil
}

// ReadBeneath reads the regular file rel beneath the folder root (trusted, followed as given)
// without following any link below it, refusing one over max bytes.
func ReadBeneath(root, rel string, max int64) ([]byte, error) {
	d, err := OpenDir(root)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadFileMax(rel, max)
}

// ReadFileIn reads the regular file path for exo's own use, at most max bytes: beneath
// workspace without following any link when path lies in it (the agent's files), else as it is
// (the user's own).
func ReadFileIn(workspace, path string, max int64) ([]byte, error) {
	return FolderIn(workspace, filepath.Dir(path)).ReadFile(filepath.Base(path), max)
}

// WriteFileIn replaces the file path with data for exo's own use: the folder holding it is
// taken as given, and a link (or anything but a regular file) at path is replaced, never
// written through. The file gets exactly the permission bits perm.
func WriteFileIn(path string, data []byte, perm fs.FileMode) error {
	d, err := OpenDir(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.ReplaceFile(filepath.Base(path), bytes.NewReader(data), perm)
}
