package store

import (
	"context"
	"errors"
	"fmt"
	"os"

	bolt "go.etcd.io/bbolt"

	"exo/store/failpoint"
)

// ErrNotLocal means the operation needs the local bbolt file and the store is on etcd.
var ErrNotLocal = errors.New("the store is not a local file")

// Backup writes a consistent copy of the database to path, which must not exist yet: the pages
// of one read transaction (appends go on meanwhile and are not in the copy), written to a file
// with no name in path's folder (backup_temp.go: a process killed part-way leaves nothing),
// synced, checked page by page like a damaged file would be, and only then linked at path
// (never over an existing file, nor through a link planted there). A path that goes through a
// symbolic link anywhere is ErrLinkInPath. The copy is 0600 from its first byte: it holds the
// sealed secrets. allow, when not nil, is given the path of the folder (its real one: no link
// is on it) and may refuse it; everything after goes through that folder as opened then. A ctx ended before the copy is named leaves nothing. It returns the copy's size. A store already known damaged is refused (its copy would
// be too); an etcd store is ErrNotLocal (`etcdctl snapshot save` backs up the cluster).
func (s *Store) Backup(ctx context.Context, path string, allow func(dir string) error) (int64, error) {
	if s.db == nil {
		return 0, fmt.Errorf("back up: %w: the events are in etcd; back up the cluster with etcdctl snapshot save", ErrNotLocal)
	}
	if err := s.Damaged(); err != nil {
		return 0, fmt.Errorf("back up: %w", err)
	}
	dir, err := openBackupDir(path, allow)
	if err != nil {
		return 0, fmt.Errorf("back up to %s: %w", path, err)
	}
	defer dir.d.Close()
	if dir.exists() {
		return 0, fmt.Errorf("back up to %s: %w", path, os.ErrExist)
	}
	tmp, err := dir.temp()
	if err != nil {
		return 0, fmt.Errorf("back up to %s: %w", path, err)
	}
	defer dir.discard(tmp)
	n, err := s.copyTo(tmp.f)
	if err == nil {
		failpoint.Hit("backup.before-link") // tests kill exo with the copy whole but not yet named
		err = checkOpen(tmp.f, path, true)
	}
	if err == nil {
		err = ctx.Err() // the caller gave up (a client killed or interrupted): no backup appears
	}
	if err == nil {
		err = dir.link(tmp)
	}
	if err != nil {
		return 0, fmt.Errorf("back up to %s: %w", path, err)
	}
	dir.d.Sync()
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
