package store

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
)

// ErrNotLocal means the operation needs the local bbolt file and the store is on etcd.
var ErrNotLocal = errors.New("the store is not a local file")

// Backup writes a consistent copy of the database to path, which must not exist yet: the pages
// of one read transaction (appends go on meanwhile and are not in the copy), written to a
// temporary file beside path, synced, checked page by page like a damaged file would be, and only
// then linked at path (never over an existing file). It returns the copy's size. A store already
// known damaged is refused (its copy would be too); an etcd store is ErrNotLocal (`etcdctl
// snapshot save` backs up the cluster).
func (s *Store) Backup(path string) (int64, error) {
	if s.db == nil {
		return 0, fmt.Errorf("back up: %w: the events are in etcd; back up the cluster with etcdctl snapshot save", ErrNotLocal)
	}
	if err := s.Damaged(); err != nil {
		return 0, fmt.Errorf("back up: %w", err)
	}
	if _, err := os.Lstat(path); err == nil {
		return 0, fmt.Errorf("back up to %s: %w", path, os.ErrExist)
	}
	var nonce [6]byte
	rand.Read(nonce[:])
	tmp := path + ".partial-" + hex.EncodeToString(nonce[:])
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return 0, fmt.Errorf("back up: %w", err)
	}
	n, err := s.copyTo(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = checkFile(tmp, true)
	}
	if err == nil {
		err = os.Link(tmp, path) // fails, unlike a rename, when path appeared meanwhile
	}
	os.Remove(tmp)
	if err != nil {
		return 0, fmt.Errorf("back up to %s: %w", path, err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return n, nil
}

// copyTo writes the pages of one read transaction to f and syncs it.
func (s *Store) copyTo(f *os.File) (n int64, err error) {
	if s.faulted.Load() {
		return 0, s.Damaged()
	}
	err = s.guarded(func() error {
		return s.db.View(func(tx *bolt.Tx) error {
			n, err = tx.WriteTo(f)
			return err
		})
	})
	if err != nil {
		return n, err
	}
	return n, f.Sync()
}
