package store

// The store's logic (hash chains, branches and forks, heads, checkpoints, records, verify) is
// written once against the small key/value interface below; bbolt (kv_bolt.go, the embedded
// default) and etcd (kv_etcd.go) implement it. Keys live in buckets named by a path: nested
// buckets in bbolt, a key prefix in etcd.

// bucketPath names a key space: a top-level bucket and, for events and checkpoints, the
// nested buckets under it (events/<branch>, projections/<projection>/<branch>).
type bucketPath []string

// scanOpts bounds a scan: keys in [from, to) (nil means unbounded on that side), in key order
// or reversed, at most limit of them (0: no limit), values omitted when keysOnly.
type scanOpts struct {
	from, to []byte
	reverse  bool
	keysOnly bool
	limit    int
}

// kvTx is one transaction of a storage engine. Reads see one consistent snapshot plus the
// transaction's own writes; writes commit together when the transaction's function returns nil
// (see flush for the one exception). Every value handed out is a copy.
type kvTx interface {
	// get returns the value under key, nil when there is none.
	get(b bucketPath, key []byte) ([]byte, error)
	// scan calls fn for the keys of b within o, in order, until fn returns false.
	scan(b bucketPath, o scanOpts, fn func(k, v []byte) bool) error
	// hasBucket reports whether b exists (an engine without bucket records says yes).
	hasBucket(b bucketPath) (bool, error)
	// buckets lists the buckets nested in b; listed is false when the engine keeps no such
	// list (etcd: a prefix exists only through its keys).
	buckets(b bucketPath) (names []string, listed bool, err error)
	// writable reports whether the transaction may write.
	writable() bool
	// put stores val under key, creating b's path when needed.
	put(b bucketPath, key, val []byte) error
	// create stores val under a key that must not exist yet (events are never overwritten).
	create(b bucketPath, key, val []byte) error
	// del removes key; removing a missing key is not an error.
	del(b bucketPath, key []byte) error
	// fence makes the commit fail with ErrNotOwner unless this process owns branch.
	fence(branch string) error
	// claim makes this process the owner of a branch created in this transaction.
	claim(branch string) error
	// full reports whether ops more writes of about size bytes would overflow what the engine
	// commits in one request; flush then commits what is buffered so far (a prefix that leaves
	// the store consistent) and the transaction goes on.
	full(ops, size int) bool
	flush() error
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

// bucketOf is the path of a top-level bucket.
func bucketOf(name []byte) bucketPath { return bucketPath{string(name)} }

// eventsOf is the bucket of a branch's own events.
func eventsOf(branch string) bucketPath { return bucketPath{string(eventsBucket), branch} }

// checkpointsOf is the bucket of a projection's checkpoints on a branch.
func checkpointsOf(projection, branch string) bucketPath {
	return bucketPath{string(projectionsBucket), projection, branch}
}

// seqKeyed reports whether a bucket's keys are 8-byte big-endian sequence numbers.
func seqKeyed(b bucketPath) bool {
	return len(b) > 1 && (b[0] == string(eventsBucket) || b[0] == string(projectionsBucket))
}
