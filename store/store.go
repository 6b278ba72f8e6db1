package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Store is an open exo database: the event log, artifacts, checkpoints and records.
type Store struct {
	home string
	// path is the database file's path under home (for bbolt; said in messages on etcd too).
	path string
	// kv runs the store's transactions: bbolt (db below) or etcd.
	kv kvEngine
	// db is the bbolt file (nil on another engine), for the checks only a local file has.
	db   *bolt.DB
	lock *homeLock
	// blobs keeps artifact contents.
	blobs Blobs
	// codec encodes and decodes events with the vocabulary the store was opened with.
	codec *Codec
	// vocab is that vocabulary.
	vocab Vocabulary
	// schemaCurrent says the file records SchemaVersion (read or written at open): branches are
	// created without reading it again (a round trip on etcd).
	schemaCurrent atomic.Bool
	// branches caches immutable branch metadata by id.
	branches sync.Map
	// damage is why writes are refused (nil while the store is sound).
	damage struct {
		sync.Mutex
		err error
	}
	// file is the identity and length of the database file opened (see checkFile).
	file fileState
	// readOnly is why every write is refused because home cannot be written (nil otherwise).
	readOnly error
	// faulted is set once bbolt panicked or faulted inside a transaction: its locks may be held
	// for good, so nothing touches it again in this process (see Faulted).
	faulted atomic.Bool
	// groupState runs group commit (see group.go).
	groupState
}

// Options tunes Open.
type Options struct {
	// NoSync skips fsync on commit; only for benchmarks and throwaway stores.
	NoSync bool
	// Evidence lists paths inside home (files or folders) whose presence shows the home was
	// used before: a missing or empty exo.db is then refused as lost, not recreated.
	Evidence []string
	// Vocabulary is what the caller's events usually say, to store them smaller. A database
	// remembers the vocabulary it was written with and is opened only with that one or one
	// that extends it (else ErrVocabulary); the zero value names nothing and compresses
	// without a dictionary.
	Vocabulary Vocabulary
	// readOnly is why home cannot be written (found by Open).
	readOnly error
}

// DBName is the database file name inside EXO_HOME.
const DBName = "exo.db"

// Open opens (creating if needed) the store in home, which is created 0700.
// It fails at once if another process holds home, and refuses corrupted, foreign or newer
// files without changing them. Damage found once the file is open (a branch's last event gone)
// leaves the store readable but refusing every write; see Damaged.
//
// A home that cannot be written (a read-only mount, a backup copy this user may only read) is
// opened for reading: events, sessions and verification work, every write is refused with
// ErrReadOnly.
func Open(home string, opts Options) (*Store, error) {
	ro := opts.readOnly // set by this package's tests, which cannot make a folder read-only as root
	if ro == nil {
		ro = homeReadOnly(home)
	}
	if ro == nil {
		if err := os.MkdirAll(home, 0o700); err != nil {
			return nil, fmt.Errorf("create exo home %s: %w", home, err)
		}
	}
	var lock *homeLock
	var err error
	if ro != nil {
		lock, err = lockHomeShared(home)
	} else {
		lock, err = lockHome(home)
	}
	if err != nil {
		return nil, err
	}
	path := filepath.Join(home, DBName)
	if err := checkPlace(home, path); err != nil {
		lock.release()
		return nil, err
	}
	if ro == nil {
		ro = fileReadOnly(path)
	}
	opts.readOnly = ro
	s, err := openLocked(home, opts)
	if err != nil {
		lock.release()
		return nil, err
	}
	s.lock = lock
	return s, nil
}

// openLocked opens the database once the home lock is held.
func openLocked(home string, opts Options) (*Store, error) {
	path := filepath.Join(home, DBName)
	fresh, err := isFresh(path)
	if err != nil {
		return nil, err
	}
	if fresh && opts.readOnly != nil {
		return nil, fmt.Errorf("no exo database to read in %s, and it cannot be created: %w", home, opts.readOnly)
	}
	if fresh {
		if err := checkUnused(home, opts.Evidence); err != nil {
			return nil, err
		}
	} else if err := checkExisting(path); err != nil {
		return nil, err
	}
	db, err := openBolt(path, &bolt.Options{Timeout: time.Second, NoSync: opts.NoSync, ReadOnly: opts.readOnly != nil})
	if err != nil {
		return nil, err
	}
	blobs := LocalBlobs(home)
	s := &Store{home: home, path: filepath.Join(home, DBName), db: db, kv: newBoltEngine(db), blobs: blobs, codec: NewCodec(opts.Vocabulary), vocab: opts.Vocabulary,
		readOnly: opts.readOnly}
	s.rememberFile()
	s.loadDamage()
	if err := s.rememberContents(); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.initSchema(); err != nil {
		db.Close()
		return nil, err
	}
	if s.readOnly != nil {
		return s, nil // nothing is prepared for writes, nor checked that needs to write
	}
	if err := blobs.prepare(); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.View(func(tx *Tx) error { return tx.checkHeads() }); err != nil {
		s.markDamaged(err)
	}
	return s, nil
}

// isFresh reports whether path is absent or empty, i.e. a database to create.
func isFresh(path string) (bool, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("stat %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return false, fmt.Errorf("open %s: it is %s, not a file: %w (move it aside or set EXO_HOME elsewhere)", path, kindOf(fi.Mode()), ErrForeign)
	}
	return fi.Size() == 0, nil
}

// checkExisting judges an existing file with plain reads, then opens it read-only and checks it
// is a current exo database, so that a foreign, corrupted or newer file is refused before
// anything could write to it (or map a page past its end).
func checkExisting(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if err := checkFile(path, fi.Size() <= DeepCheckLimit); err != nil {
		return err
	}
	db, err := openBolt(path, &bolt.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		return err
	}
	defer db.Close()
	return guard(path, func() error {
		return db.View(func(tx *bolt.Tx) error { return checkSchema(path, boltTx{tx}) })
	})
}

// openBolt opens a bbolt file, translating its failures (and panics) into clear errors.
func openBolt(path string, o *bolt.Options) (db *bolt.DB, err error) {
	err = guard(path, func() error {
		var oerr error
		db, oerr = bolt.Open(path, 0o600, o)
		return oerr
	})
	if err == nil {
		return db, nil
	}
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, fmt.Errorf("open %s: another process holds the database: %w", path, ErrLocked)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch):
		return nil, fmt.Errorf("open %s: %v: %w (move it aside or set EXO_HOME elsewhere)", path, err, ErrForeign)
	case errors.Is(err, berrors.ErrChecksum), errors.Is(err, ErrCorrupt):
		return nil, fmt.Errorf("open %s: %v: %w (restore a backup or move it aside)", path, err, ErrCorrupt)
	}
	return nil, fmt.Errorf("open %s: %w", path, err)
}

// guard runs fn and turns a panic inside bbolt (a damaged page) into ErrCorrupt. Memory faults
// on the mapped file (a page past the end of a file truncated under us) panic instead of killing
// the process, and are caught the same way.
func guard(path string, fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			err = fmt.Errorf("read %s: %v: %w (%s)", path, r, ErrCorrupt, wayOut)
		}
	}()
	return fn()
}

// maxPlausibleSchema bounds the schema versions a later exo could have written: one step per
// layout change leaves this far away, so a larger number is a damaged meta page, not the future.
const maxPlausibleSchema = SchemaVersion + 100

// checkSchema verifies the magic and schema version of an opened database.
func checkSchema(path string, tx kvTx) error {
	meta, ok, err := tx.bucket(pathMeta)
	if err != nil {
		return err
	}
	if !ok {
		top, _, err := tx.buckets()
		if err != nil {
			return err
		}
		if len(top) == 0 {
			return nil // a bbolt file we created but never initialised
		}
		if ours := exoBuckets(top); ours > 0 {
			return fmt.Errorf("open %s: it has %d of exo's buckets but its metadata is unreadable: %w (%s)", path, ours, ErrCorrupt, wayOut)
		}
		return fmt.Errorf("open %s: %w: it has no exo metadata (move it aside or set EXO_HOME elsewhere)", path, ErrForeign)
	}
	mg, err := meta.get(metaMagicKey)
	if err != nil {
		return err
	}
	if string(mg) != magic {
		return fmt.Errorf("open %s: %w: wrong magic", path, ErrForeign)
	}
	sv, err := meta.get(metaSchemaKey)
	if err != nil {
		return err
	}
	v := keySeq(sv)
	if len(sv) != 8 || v > maxPlausibleSchema {
		return fmt.Errorf("open %s: schema version %x is no version any exo writes: %w (%s)", path, sv, ErrCorrupt, wayOut)
	}
	if v > SchemaVersion {
		return fmt.Errorf("open %s: schema %d, this exo reads %d: %w (upgrade exo; if no newer exo ever wrote this file, it is damaged: %s)", path, v, SchemaVersion, ErrNewerSchema, wayOut)
	}
	if v == 0 {
		return fmt.Errorf("open %s: missing schema version: %w", path, ErrCorrupt)
	}
	return nil
}

// initSchema creates the buckets and metadata of a new database, or checks an existing one and
// brings an older layout up to date. A current database is only read, never written.
func (s *Store) initSchema() error {
	current, named := false, false
	err := s.view(func(tx kvTx) error {
		if err := checkSchema(s.Path(), tx); err != nil {
			return err
		}
		v, err := schemaOf(tx)
		if err != nil {
			return err
		}
		if named, err = s.checkVocabulary(tx); err != nil {
			return err
		}
		has, err := hasBuckets(tx)
		current = v >= schemaHeads && v <= SchemaVersion && has
		s.schemaCurrent.Store(v == SchemaVersion)
		return err
	})
	if err != nil || (current && named) {
		return err
	}
	if current && (s.Damaged() != nil || s.readOnly != nil) {
		return nil // writes are refused: nothing is written that the record would have to name
	}
	err = s.update(func(tx kvTx) error {
		for _, name := range topBuckets() {
			if _, err := tx.createBucket(string(name)); err != nil {
				return err
			}
		}
		meta, err := tx.createBucket(pathMeta)
		if err != nil {
			return err
		}
		if id, err := meta.get(metaIDKey); err != nil {
			return err
		} else if id == nil {
			id = newDBID()
			s.file.proposed.Store(&id)
			if err := meta.put(metaIDKey, id); err != nil {
				return err
			}
		}
		if mg, err := meta.get(metaMagicKey); err != nil {
			return err
		} else if mg == nil {
			if err := meta.put(metaMagicKey, []byte(magic)); err != nil {
				return err
			}
			if err := meta.put(metaSchemaKey, seqKey(SchemaVersion)); err != nil {
				return err
			}
		} else if err := s.migrate(&Tx{s: s, tx: tx}); err != nil {
			return err
		}
		if named {
			return nil
		}
		return meta.put(metaVocabularyKey, s.vocab.record().encode())
	})
	if err == nil {
		s.schemaCurrent.Store(true) // a new file's version, or a migration's
	}
	return err
}

// exoBuckets counts the names among top that are exo's own buckets.
func exoBuckets(top []string) int {
	n := 0
	for _, name := range top {
		for _, b := range topBuckets() {
			if name == string(b) {
				n++
			}
		}
	}
	return n
}

// schemaOf reads the schema version, 0 when the database has none yet.
func schemaOf(tx kvTx) (uint64, error) {
	meta, ok, err := tx.bucket(pathMeta)
	if err != nil || !ok {
		return 0, err
	}
	v, err := meta.get(metaSchemaKey)
	return keySeq(v), err
}

// hasBuckets reports whether every top-level bucket exists.
func hasBuckets(tx kvTx) (bool, error) {
	for _, name := range topBuckets() {
		if _, ok, err := tx.bucket(string(name)); err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// Close releases the database and the home lock.
func (s *Store) Close() error {
	s.closeGroup()
	var err error
	if !s.faulted.Load() { // a faulted bbolt may hold its locks for good: the process exit frees it
		err = s.kv.close()
	}
	if lerr := s.lock.release(); err == nil {
		err = lerr
	}
	return err
}

// Home returns the EXO_HOME directory of this store.
func (s *Store) Home() string { return s.home }

// Path returns the database file path.
func (s *Store) Path() string { return s.path }

// Schema returns the schema version stored in the file.
func (s *Store) Schema() (v uint64, err error) {
	err = s.view(func(tx kvTx) error {
		v, err = schemaOf(tx)
		return err
	})
	return v, err
}

// Size returns the database file size in bytes (0 when the store is not a local file).
func (s *Store) Size() int64 {
	var n int64
	if s.db != nil && !s.faulted.Load() {
		_ = s.guarded(func() error { return s.db.View(func(tx *bolt.Tx) error { n = tx.Size(); return nil }) })
	}
	return n
}

// Engine names the storage engine behind the store ("bbolt" or "etcd").
func (s *Store) Engine() string { return s.kv.kind() }

// update runs a read-write transaction, turning panics from damaged pages into errors.
// A damaged store refuses it.
func (s *Store) update(fn func(kvTx) error) error {
	if s.readOnly != nil {
		return fmt.Errorf("write refused: %w", s.readOnly)
	}
	if err := s.Damaged(); err != nil {
		return fmt.Errorf("write refused: %w", err)
	}
	if s.faulted.Load() {
		return fmt.Errorf("write refused: %w", s.Damaged())
	}
	if err := s.checkFile(); err != nil {
		return fmt.Errorf("write refused: %w", err)
	}
	err := s.noteDamage(s.guarded(func() error { return s.kv.update(s.checked(fn)) }))
	s.noteSize()
	return err
}

// view runs a read-only transaction, turning panics from damaged pages into errors. The file
// is checked first (removed, replaced, cut) and its contents as the transaction sees them
// (another database's, or an older copy copied in place), so that a file changed under a
// running exo is said to be, never read as if it were the one exo wrote.
func (s *Store) view(fn func(kvTx) error) error {
	if s.faulted.Load() {
		return s.Damaged()
	}
	if err := s.checkFile(); err != nil {
		return err
	}
	return s.noteDamage(s.guarded(func() error { return s.kv.view(s.checked(fn)) }))
}

// checked runs fn after checkContents on a bbolt transaction (on etcd it is fn).
func (s *Store) checked(fn func(kvTx) error) func(kvTx) error {
	if s.db == nil {
		return fn
	}
	before := s.file.txid.Load()
	return func(tx kvTx) error {
		if bt, ok := tx.(boltTx); ok {
			if err := s.checkContents(bt.tx, before); err != nil {
				return err
			}
		}
		return fn(tx)
	}
}

// guarded is guard for an open store: a panic or fault inside bbolt marks the store faulted.
func (s *Store) guarded(fn func() error) error {
	panicked := true
	err := guard(s.Path(), func() error {
		err := fn()
		panicked = false
		return err
	})
	if panicked {
		if cut := s.checkFile(); cut != nil {
			return cut // the file changed under exo: say that, not the fault it caused
		}
		if fi, serr := os.Stat(s.Path()); serr == nil && s.file.id != (fileID{}) && fi.Size() != s.file.size.Load() {
			return s.changedUnder(fmt.Sprintf("it grew from %d to %d bytes but not by exo's writes (another file was copied into it), and reading it faulted", s.file.size.Load(), fi.Size()))
		}
		s.faulted.Store(true)
		s.markDamaged(err)
	}
	return err
}

// Faulted reports whether bbolt failed inside a transaction (a page past the end of a file
// truncated under this process, a damaged page): the store then answers every call with its
// damage, and the process should close it and open the file afresh.
func (s *Store) Faulted() bool { return s.faulted.Load() }
