package store

import (
	"bytes"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// boltEngine runs the store's transactions on one bbolt file (the embedded default). The home
// lock makes this process the only writer, so fence and claim have nothing to check.
type boltEngine struct{ db *bolt.DB }

// boltAllocSize is how much the file grows at a time once it is past this size (bbolt's default
// is 16 MiB, which left a 5,000-turn session's file up to 16 MiB larger than its pages; growing costs a
// truncate and an fsync, once per 64 KiB, next to the fsync of every commit).
const boltAllocSize = 64 << 10

// newBoltEngine wraps an opened bbolt file.
func newBoltEngine(db *bolt.DB) boltEngine {
	db.AllocSize = boltAllocSize
	return boltEngine{db}
}

// update runs a read-write bbolt transaction.
func (e boltEngine) update(fn func(kvTx) error) error {
	return e.db.Update(func(tx *bolt.Tx) error { return fn(boltTx{tx}) })
}

// view runs a read-only bbolt transaction.
func (e boltEngine) view(fn func(kvTx) error) error {
	return e.db.View(func(tx *bolt.Tx) error { return fn(boltTx{tx}) })
}

// close closes the bbolt file.
func (e boltEngine) close() error { return e.db.Close() }

// kind is "bbolt".
func (boltEngine) kind() string { return "bbolt" }

// boltTx is a bbolt transaction seen through kvTx: paths are nested buckets.
type boltTx struct{ tx *bolt.Tx }

// bucket opens the nested bucket at path.
func (t boltTx) bucket(path ...string) (kvBucket, bool, error) {
	b := t.tx.Bucket([]byte(path[0]))
	for _, p := range path[1:] {
		if b == nil {
			break
		}
		b = b.Bucket([]byte(p))
	}
	if b == nil {
		return nil, false, nil
	}
	return boltBucket{fill(b, path)}, true, nil
}

// fill packs the pages of append-only buckets full: events and checkpoints only ever get keys
// above the last one, so a split page is never written into again, and bbolt's default of
// splitting at half a page left them half empty. Branch records are nearly so: the harness's
// ids begin with their creation time, and a rewind's branch sorts right after its session, so
// new records land at or near the right edge. Packed, the bucket has half the leaves, and
// the branch pages a fork rewrites (bbolt reads every element of each page on the path into
// memory to write it again) are narrower: BenchmarkFork allocates a third less, and
// TestBranchesPacked holds the bucket's pages full.
func fill(b *bolt.Bucket, path []string) *bolt.Bucket {
	if !b.Writable() {
		return b
	}
	if len(path) > 1 && (path[0] == pathEvents || path[0] == pathProjections) || len(path) == 1 && path[0] == pathBranches {
		b.FillPercent = 1.0
	}
	return b
}

// createBucket opens the nested bucket at path, creating what is missing.
func (t boltTx) createBucket(path ...string) (kvBucket, error) {
	b, err := t.tx.CreateBucketIfNotExists([]byte(path[0]))
	for _, p := range path[1:] {
		if err != nil {
			break
		}
		b, err = b.CreateBucketIfNotExists([]byte(p))
	}
	if errors.Is(err, berrors.ErrIncompatibleValue) {
		// exo only ever keeps buckets at these paths: a plain value there is a damaged page.
		return nil, fmt.Errorf("create bucket %v: a value where a bucket belongs: %w (%s)", path, ErrCorrupt, wayOut)
	}
	if err != nil {
		return nil, fmt.Errorf("create bucket %v: %w", path, err)
	}
	return boltBucket{fill(b, path)}, nil
}

// buckets lists the buckets nested in path (the top level when path is empty).
func (t boltTx) buckets(path ...string) ([]string, bool, error) {
	var names []string
	if len(path) == 0 {
		err := t.tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			names = append(names, string(name))
			return nil
		})
		return names, true, err
	}
	b, ok, err := t.bucket(path...)
	if err != nil || !ok {
		return nil, true, err
	}
	err = b.(boltBucket).b.ForEachBucket(func(k []byte) error {
		names = append(names, string(k))
		return nil
	})
	return names, true, err
}

// writable reports whether this is an Update transaction.
func (t boltTx) writable() bool { return t.tx.Writable() }

// fence succeeds: the home lock makes this process the only writer.
func (boltTx) fence(string) error { return nil }

// claim succeeds: the home lock makes this process the only writer.
func (boltTx) claim(string) error { return nil }

// unchanged does nothing: the home lock makes this process the only writer.
func (boltTx) unchanged([]byte, ...string) {}

// boltBucket is a bbolt bucket seen through kvBucket.
type boltBucket struct{ b *bolt.Bucket }

func (b boltBucket) get(key []byte) ([]byte, error) { return b.b.Get(key), nil }

func (b boltBucket) last() ([]byte, []byte, error) {
	k, v := b.b.Cursor().Last()
	return k, v, nil
}

func (b boltBucket) atOrBefore(key []byte) ([]byte, []byte, error) {
	c := b.b.Cursor()
	k, v := c.Seek(key)
	if k == nil || bytes.Compare(k, key) > 0 {
		k, v = c.Prev()
	}
	return k, v, nil
}

func (b boltBucket) scan(from []byte, fn func(k, v []byte) (bool, error)) error {
	c := b.b.Cursor()
	k, v := c.First()
	if from != nil {
		k, v = c.Seek(from)
	}
	for ; k != nil; k, v = c.Next() {
		if v == nil && b.b.Bucket(k) != nil {
			// Every bucket exo scans holds keys only. A nested bucket here is a record whose
			// bucket flag was flipped on disk: skipping it would lose the record unnoticed
			// (a branch gone from Branches with nothing reported).
			return fmt.Errorf("key %q: a bucket where a record belongs: %w (%s)", k, ErrCorrupt, wayOut)
		}
		more, err := fn(k, v)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

func (b boltBucket) keys(from []byte, fn func(k []byte) (bool, error)) error {
	return b.scan(from, func(k, _ []byte) (bool, error) { return fn(k) })
}

func (b boltBucket) put(key, val []byte) error { return b.b.Put(key, val) }

func (b boltBucket) create(key, val []byte) error {
	if b.b.Get(key) != nil {
		return errKeyExists
	}
	return b.b.Put(key, val)
}

func (b boltBucket) appendKey(key, val []byte) error { return b.b.Put(key, val) }

func (b boltBucket) del(key []byte) error { return b.b.Delete(key) }
