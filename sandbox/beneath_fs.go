package sandbox

import (
	"io/fs"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// statEntry is a directory entry described by fstatat without following links.
type statEntry struct {
	name string
	st   unix.Stat_t
}

// Name returns the entry's name.
func (e statEntry) Name() string { return e.name }

// IsDir reports whether the entry is a folder (a link to one is not).
func (e statEntry) IsDir() bool { return e.st.Mode&unix.S_IFMT == unix.S_IFDIR }

// Type returns the entry's type bits.
func (e statEntry) Type() fs.FileMode { return statMode(e.st.Mode).Type() }

// Info returns the entry's description.
func (e statEntry) Info() (fs.FileInfo, error) { return statInfo(e), nil }

// statInfo is fs.FileInfo over a Stat_t.
type statInfo statEntry

// Name returns the base name.
func (i statInfo) Name() string { return i.name }

// Size returns the size in bytes.
func (i statInfo) Size() int64 { return i.st.Size }

// Mode returns the mode bits.
func (i statInfo) Mode() fs.FileMode { return statMode(i.st.Mode) }

// ModTime returns the modification time.
func (i statInfo) ModTime() time.Time { return time.Unix(i.st.Mtim.Unix()) }

// IsDir reports whether it is a folder.
func (i statInfo) IsDir() bool { return statEntry(i).IsDir() }

// Sys returns the unix.Stat_t.
func (i statInfo) Sys() any { return &i.st }

// statMode converts st_mode to fs.FileMode.
func statMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// sortEntries sorts entries by name.
func sortEntries(es []fs.DirEntry) {
	slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}

// FS returns the folder as an fs.FS whose every access stays beneath it and follows no
// link: Open of a path through a link fails, and Stat describes a link rather than its target.
func (d *Dir) FS() fs.FS { return dirFS{d} }

// dirFS adapts a Dir to fs.FS, fs.ReadDirFS and fs.StatFS.
type dirFS struct{ d *Dir }

// Open opens name for reading.
func (f dirFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return f.d.Open(name)
}

// ReadDir lists name without following links.
func (f dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	return f.d.ReadDir(name)
}

// Stat describes name without following a final link.
func (f dirFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	return f.d.Lstat(name)
}
