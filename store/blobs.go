package store

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
)

// Blobs keeps artifact contents by their SHA-256, outside the event store (which keeps their
// metadata). A folder on this machine is the default; a folder every machine mounts lets the
// daemons sharing an etcd store read each other's artifacts.
type Blobs interface {
	// Create starts a blob: a temporary file in the blob store's own space, which Put takes.
	Create() (*os.File, error)
	// Put makes the finished temporary file tmp the content of id, kept once per content.
	Put(tmp, id string) error
	// Open opens the content of id (ErrNotFound when it is not there).
	Open(id string) (io.ReadCloser, error)
	// Shared reports whether other machines read the same blobs.
	Shared() bool
	// Where names where the blobs are, for messages.
	Where() string
}

// FolderBlobs keeps blobs as files in a folder, under the first two hex digits of their id.
type FolderBlobs struct {
	dir, tmp string
	shared   bool
}

// LocalBlobs keeps blobs in EXO_HOME/artifacts: this machine's alone.
func LocalBlobs(home string) *FolderBlobs {
	dir := filepath.Join(home, "artifacts")
	return &FolderBlobs{dir: dir, tmp: filepath.Join(dir, "tmp")}
}

// SharedFolderBlobs keeps blobs in a folder every machine mounts at dir; each daemon (node)
// writes its temporary files in a folder of its own there, so cleaning up after a crash never
// touches another daemon's blob in progress.
func SharedFolderBlobs(dir, node string) *FolderBlobs {
	return &FolderBlobs{dir: dir, tmp: filepath.Join(dir, "tmp", url.PathEscape(node)), shared: true}
}

// prepare creates the folders and removes temporary files a process that died left behind
// (the caller holds the home lock, and node names are unique among live daemons).
func (b *FolderBlobs) prepare() error {
	if err := os.MkdirAll(b.tmp, 0o700); err != nil {
		return fmt.Errorf("create artifact folder %s: %w", b.tmp, err)
	}
	left, _ := filepath.Glob(filepath.Join(b.tmp, "blob-*"))
	for _, p := range left {
		_ = os.Remove(p)
	}
	return nil
}

// Create starts a blob in the folder's temporary space.
func (b *FolderBlobs) Create() (*os.File, error) { return os.CreateTemp(b.tmp, "blob-*") }

// path is the file of a blob.
func (b *FolderBlobs) path(id string) string { return filepath.Join(b.dir, id[:2], id) }

// Put moves a finished temporary file to its content address unless that blob exists.
func (b *FolderBlobs) Put(tmp, id string) error {
	dst := b.path(id)
	if _, err := os.Stat(dst); err == nil {
		return nil
	}
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create artifact dir %s: %w", dir, err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		return fmt.Errorf("store artifact %s: %w", id, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// Open opens a blob's file.
func (b *FolderBlobs) Open(id string) (io.ReadCloser, error) {
	f, err := os.Open(b.path(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("artifact %s is recorded but its content is not in %s: %w", id, b.Where(), ErrNotFound)
	}
	return f, err
}

// Shared reports whether the folder is the one every machine mounts.
func (b *FolderBlobs) Shared() bool { return b.shared }

// Where names the folder, and whether it is shared.
func (b *FolderBlobs) Where() string {
	if b.shared {
		return "the shared folder " + b.dir
	}
	return b.dir + " (this machine's)"
}
