package store

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
)

// fileID identifies the database file this store has open (device and inode).
type fileID struct{ dev, ino uint64 }

// fileState is what the store knows of its file: which one, how long bbolt left it, and what
// its contents must say.
type fileState struct {
	id   fileID
	size atomic.Int64
	// dbid is the database's own id (metaIDKey), read at open or written by this process's
	// first write: a file with other contents copied into this one in place (same inode, same
	// or larger size) says another or none. nil until known (a database made before ids, only
	// read so far: opening and reading write nothing).
	dbid atomic.Pointer[[]byte]
	// proposed is the id the last write transaction gave a database that had none: seen in
	// the file, it is this process's own and becomes dbid.
	proposed atomic.Pointer[[]byte]
	// txid is the newest transaction id this process committed or is committing: only this
	// process writes the file (the home lock), so a transaction that begins on an older one
	// began on contents copied in under it (an earlier backup of the same database).
	txid atomic.Uint64
}

// metaIDKey names the database's id in the meta bucket: 16 random bytes written once, by the
// first write of an exo that has them. A backup keeps it.
var metaIDKey = []byte("id")

// newDBID makes a database id.
func newDBID() []byte {
	id := make([]byte, 16)
	rand.Read(id)
	return id
}

// idOf reads the identity of an open or named file.
func idOf(fi os.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino}, true
}

// rememberFile records which file the store opened, so a file removed or replaced under a
// long-lived process (the daemon) is noticed before the next write.
func (s *Store) rememberFile() {
	if fi, err := os.Stat(s.Path()); err == nil { // the home lock is held: nobody swaps it meanwhile
		s.file.id, _ = idOf(fi)
		s.file.size.Store(fi.Size())
	}
}

// noteSize records the file's length after a commit (bbolt only ever grows it).
func (s *Store) noteSize() {
	if s.db == nil {
		return
	}
	if _, size, err := statFile(s.Path()); err == nil {
		s.file.size.Store(size)
	}
}

// statFile reads the identity and length of the file at path without allocating a FileInfo:
// every transaction does it once.
func statFile(path string) (fileID, int64, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return fileID{}, 0, err
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino}, st.Size, nil
}

// checkFile fails when exo.db is no longer the file this store has open: it was deleted (the
// writes would go to a ghost) or replaced (a backup restored). The store is then marked
// faulted, so the process closes it and the next one opens what is there now.
func (s *Store) checkFile() error {
	if s.file.id == (fileID{}) || s.faulted.Load() {
		return nil
	}
	// The length noted after the last commit is read before the file's: a commit may grow the
	// file, and note its length, in between, and this length was a file's before that commit
	// (bbolt only grows it). Read the other way round, a file that grew read as cut.
	want := s.file.size.Load()
	now, size, err := statFile(s.Path())
	if err == nil && now == s.file.id && size >= want {
		return nil
	}
	why := "it was removed"
	switch {
	case err == nil && now == s.file.id:
		why = fmt.Sprintf("it was cut from %d to %d bytes (truncated, or a smaller file copied into it)", want, size)
	case err == nil:
		why = "another file replaced it"
	}
	return s.changedUnder(why)
}

// changedWayOut is what to do once exo.db changed under a running exo.
const changedWayOut = "stop exo with `exo daemon stop`, restore exo.db from a backup (`exo backup` makes them) " +
	"or keep the file there now, then run `exo verify`; `exo doctor` says more"

// changedUnder marks the store faulted (nothing in this process touches the file again: the
// daemon exits and the next one opens what is there now) and damaged, saying why.
func (s *Store) changedUnder(why string) error {
	s.faulted.Store(true)
	cause := fmt.Errorf("%s is not the file exo opened: %s while exo had it open: %w (%s)", s.Path(), why, ErrCorrupt, changedWayOut)
	s.markDamaged(cause)
	return cause
}

// checkContents fails when the transaction tx, begun when the newest transaction this process
// had committed or was committing was before, sees contents this process did not write: another
// database's (its id differs, or it has none where this one has) or an older copy of this one
// (its transaction id is behind). Cheap: one id read from the mapped file and two numbers
// compared. A write transaction on a database without an id gives it one.
func (s *Store) checkContents(tx *bolt.Tx, before uint64) error {
	txid := uint64(tx.ID())
	if tx.Writable() {
		txid-- // a write transaction's id is the one it will commit
	}
	meta := tx.Bucket([]byte(pathMeta))
	var id []byte
	if meta != nil {
		id = meta.Get(metaIDKey)
	}
	known := s.file.dbid.Load()
	if p := s.file.proposed.Load(); known == nil && id != nil && p != nil && bytes.Equal(id, *p) {
		s.file.dbid.Store(p)
		known = p
	}
	switch {
	case known != nil && !bytes.Equal(id, *known), known == nil && id != nil && tx.Writable():
		return s.changedUnder("another database was copied over it")
	case txid+1 < before:
		return s.changedUnder(fmt.Sprintf("an older copy of it (transaction %d, exo had written %d) was copied over it", txid, s.file.txid.Load()))
	}
	if !tx.Writable() {
		return nil
	}
	s.file.txid.Store(txid + 1)
	if known == nil && meta != nil {
		id := newDBID()
		s.file.proposed.Store(&id)
		return meta.Put(metaIDKey, id)
	}
	return nil
}

// rememberContents reads the database's id and the newest transaction id at open.
func (s *Store) rememberContents() error {
	if s.db == nil {
		return nil
	}
	return s.guarded(func() error {
		return s.db.View(func(tx *bolt.Tx) error {
			s.file.txid.Store(uint64(tx.ID()))
			if meta := tx.Bucket([]byte(pathMeta)); meta != nil {
				if id := meta.Get(metaIDKey); id != nil {
					id = bytes.Clone(id)
					s.file.dbid.Store(&id)
				}
			}
			return nil
		})
	})
}
