package store

import "errors"

// The store's logic (hash chains, branches and forks, heads, checkpoints, records, verify) is
// written once against the small ordered key/value interface below; bbolt (kv_bolt.go, the
// embedded default) and etcd (kv_etcd.go) implement it. Keys live in buckets named by a path:
// nested buckets in bbolt, a key prefix in etcd.

// kvBucket is one ordered key space inside a transaction. Keys and values it hands out are
// valid until the transaction ends; callers copy what they keep.
type kvBucket interface {
	// get returns the value under key, nil when there is none.
	get(key []byte) ([]byte, error)
	// last returns the greatest key and its value, nil when the bucket is empty.
	last() (k, v []byte, err error)
	// atOrBefore returns the greatest key <= key and its value, nil when there is none.
	atOrBefore(key []byte) (k, v []byte, err error)
	// scan calls fn for every key >= from (all keys when from is nil), in key order, until fn
	// returns false or an error.
	scan(from []byte, fn func(k, v []byte) (bool, error)) error
	// keys is scan without the values (an engine that would send them over the network
	// does not).
	keys(from []byte, fn func(k []byte) (bool, error)) error
	// put stores val under key.
	put(key, val []byte) error
	// create stores val under a key that must not exist yet (events are never overwritten):
	// it fails with errKeyExists.
	create(key, val []byte) error
	// appendKey stores val under a key greater than every key of the bucket, whose last key
	// the caller read in this transaction (an event after the branch's head). Engines with
	// concurrent writers make it create-only, so another writer's key is never overwritten;
	// bbolt's single writer needs no check.
	appendKey(key, val []byte) error
	// del removes key; removing a missing key is not an error.
	del(key []byte) error
}

// kvTx is one transaction of a storage engine. Reads see one consistent snapshot plus the
// transaction's own writes; writes commit together when the transaction's function returns nil.
type kvTx interface {
	// bucket opens the bucket at path; ok is false when it does not exist (an engine that
	// keeps no bucket records answers with an empty bucket instead).
	bucket(path ...string) (b kvBucket, ok bool, err error)
	// createBucket opens the bucket at path, creating it (and its parents) when needed.
	createBucket(path ...string) (kvBucket, error)
	// buckets lists the names of the buckets nested in path; listed is false when the engine
	// keeps no such list (etcd: a prefix exists only through its keys).
	buckets(path ...string) (names []string, listed bool, err error)
	// writable reports whether the transaction may write.
	writable() bool
	// fence makes the commit fail with ErrNotOwner unless this process owns branch.
	fence(branch string) error
	// claim makes this process the owner of a branch created in this transaction.
	claim(branch string) error
	// unchanged makes the commit fail (to run again) unless key of the bucket at path holds
	// what it was created with: a record written once and never again, which the transaction
	// relies on without reading it (a branch record from the cache). bbolt's single writer
	// needs no check.
	unchanged(key []byte, path ...string)
}

// kvEngine is a storage engine: it runs transactions.
type kvEngine interface {
	// update runs fn in a read-write transaction. fn may run more than once when the engine
	// retries after a conflicting write from another process; it must change state only
	// through the transaction it is given.
	update(fn func(kvTx) error) error
	// view runs fn in a read-only transaction.
	view(fn func(kvTx) error) error
	// close releases the engine.
	close() error
	// kind names the engine ("bbolt", "etcd").
	kind() string
}

// errKeyExists is what create returns for a key already stored.
var errKeyExists = errors.New("key already exists")

// Bucket paths of the store's key spaces.
const (
	pathMeta        = "meta"
	pathBranches    = "branches"
	pathEvents      = "events"
	pathArtifacts   = "artifacts"
	pathProjections = "projections"
	pathHeads       = "heads"
)
