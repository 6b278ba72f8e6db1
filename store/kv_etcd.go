package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// etcdEngine runs the store's transactions on an etcd cluster. A transaction reads at one
// revision, buffers its writes and commits them in one etcd Txn guarded by compares: the keys
// it read are unchanged (else it runs again), new events and branches are create-only, and an
// append holds the branch's owner key under this daemon's lease (the fence).
type etcdEngine struct {
	cli    *clientv3.Client
	prefix string // "exo/v1/<namespace>/"
	ns     string
	node   string
	// home is the daemon's EXO_HOME, which remembers the lease last held (see lease_home.go).
	home    string
	timeout time.Duration
	ttl     time.Duration
	// maxOps and maxBytes bound one Txn: etcd refuses more (--max-txn-ops, --max-request-bytes).
	maxOps, maxBytes int

	// mu guards lease (the live lease, 0 while there is none) and held (the last lease granted,
	// which may outlive its loss on the cluster's side).
	mu          sync.Mutex
	lease, held clientv3.LeaseID
	// leaseMu serialises getting a new lease (see ensureLease).
	leaseMu sync.Mutex
	// closed is set, and done closed, when the engine closes: no lease is sought after.
	closed atomic.Bool
	done   chan struct{}
	// reach says whether the cluster answers; reads counts the range requests made.
	reach *reach
	reads *readCounter
	// written remembers, by head key, what this engine last committed to a branch (see
	// kv_etcd_heads.go); wmu guards it.
	wmu     sync.Mutex
	written map[string]writtenHead
}

// etcdPage is how many keys one range request returns while scanning.
const etcdPage = 512

// etcdRetries bounds how often a transaction is run again after a conflicting write.
const etcdRetries = 64

// errConflict means another writer changed what a transaction read: it runs again.
var errConflict = errors.New("etcd transaction conflicted with another writer")

// ErrNoSpace means the etcd cluster is over its storage quota: nothing of the refused write
// was stored (a write etcd applied before answering NOSPACE is read back and acknowledged;
// when the read-back fails, the error says so).
var ErrNoSpace = errors.New("etcd cluster is out of space (NOSPACE)")

// currentLease returns the lease this daemon holds its ownerships under.
func (e *etcdEngine) currentLease() clientv3.LeaseID {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lease
}

// ctx bounds one request.
func (e *etcdEngine) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), e.timeout)
}

// update runs fn until its commit does not conflict with another writer.
func (e *etcdEngine) update(fn func(kvTx) error) error {
	for attempt, fromCluster := 0, false; ; attempt++ {
		tx := newEtcdTx(e, true)
		tx.fromCluster = fromCluster
		if err := fn(tx); err != nil {
			if errors.Is(err, ErrCorrupt) && len(tx.remembered) > 0 && !fromCluster {
				// Damage is believed only as read from the cluster, never from memory.
				tx.forgetAll()
				fromCluster = true
				continue
			}
			return err
		}
		err := tx.commit()
		if !errors.Is(err, errConflict) || attempt == etcdRetries {
			return err
		}
		time.Sleep(time.Duration(attempt%8+1) * time.Millisecond)
	}
}

// view runs fn on one revision of the cluster.
func (e *etcdEngine) view(fn func(kvTx) error) error {
	err := fn(newEtcdTx(e, false))
	if errors.Is(err, rpctypes.ErrCompacted) { // the revision read was compacted meanwhile
		err = fn(newEtcdTx(e, false))
	}
	return err
}

// close revokes the lease (giving up this daemon's ownerships at once) and closes the client.
func (e *etcdEngine) close() error {
	if e.closed.Swap(true) {
		return nil
	}
	close(e.done)
	e.leaseMu.Lock() // wait for a grant under way
	defer e.leaseMu.Unlock()
	e.mu.Lock()
	held := e.held
	e.lease = 0
	e.mu.Unlock()
	if held != 0 {
		e.revoke(held)
	}
	return e.cli.Close()
}

// kind is "etcd".
func (*etcdEngine) kind() string { return "etcd" }

// limits returns the most operations and bytes one commit may carry.
func (e *etcdEngine) limits() (int, int) { return e.maxOps, e.maxBytes }

// bucketPrefix is the key prefix of a bucket. Record buckets belong to the node (sessions,
// secrets, models, settings and journal are this daemon's); the rest is shared by the cluster.
func (e *etcdEngine) bucketPrefix(path []string) string {
	var b strings.Builder
	b.WriteString(e.prefix)
	if len(path) == 1 && isRecordBucket(path[0]) {
		b.WriteString("nodes/")
		b.WriteString(url.PathEscape(e.node))
		b.WriteByte('/')
	}
	for _, p := range path {
		b.WriteString(url.PathEscape(p))
		b.WriteByte('/')
	}
	return b.String()
}

// ownerKey is the key that names, under its lease, the daemon owning a branch.
func (e *etcdEngine) ownerKey(branch string) string {
	return e.prefix + "owners/" + url.PathEscape(branch)
}

// isRecordBucket reports whether name is one of the harness's record buckets.
func isRecordBucket(name string) bool {
	for _, b := range recordBuckets {
		if string(b) == name {
			return true
		}
	}
	return false
}

// etcdWrite is one buffered write: a put, or a delete when del is set.
type etcdWrite struct {
	val   []byte
	del   bool
	lease bool
}

// etcdTx is one transaction on the cluster.
type etcdTx struct {
	e      *etcdEngine
	rw     bool
	rev    int64
	cmps   []clientv3.Cmp
	seen   map[string]bool
	cache  map[string][]byte // values read (at rev), nil for absent
	writes map[string]etcdWrite
	order  []string
	fenced map[string]bool
	// fenceLease is the lease the fences compare with.
	fenceLease clientv3.LeaseID
	size       int
	// remembered holds the head keys read from memory rather than from the cluster, each as it
	// was read: a head and its last event come from one entry, though a concurrent commit
	// (two groups are in flight at once) may replace the entry in between.
	remembered map[string]writtenHead
	// fromCluster makes every read go to the cluster (a run again after damage was seen).
	fromCluster bool
	// kept lists the keys required at their first version (see unchanged).
	kept []string
}

func newEtcdTx(e *etcdEngine, rw bool) *etcdTx {
	return &etcdTx{e: e, rw: rw, seen: map[string]bool{}, cache: map[string][]byte{}, writes: map[string]etcdWrite{}, fenced: map[string]bool{}}
}

// get reads one key at the transaction's revision (its own writes first). In a read-write
// transaction the commit then requires the key to be unchanged.
func (t *etcdTx) get(key string) ([]byte, error) {
	if w, ok := t.writes[key]; ok {
		if w.del {
			return nil, nil
		}
		return w.val, nil
	}
	if v, ok := t.cache[key]; ok {
		return v, nil
	}
	if v, ok := t.fromMemory(key); ok {
		return v, nil
	}
	resp, err := t.rangeReq(key, "", 0, false)
	if err != nil {
		return nil, err
	}
	var val []byte
	var mod int64
	if len(resp.Kvs) > 0 {
		val, mod = resp.Kvs[0].Value, resp.Kvs[0].ModRevision
	}
	t.cache[key] = val
	if t.rw && !t.seen[key] {
		t.seen[key] = true
		t.cmps = append(t.cmps, clientv3.Compare(clientv3.ModRevision(key), "=", mod))
	}
	return val, nil
}

// rangeReq runs one range request at the transaction's revision, fixing it on the first read.
func (t *etcdTx) rangeReq(key, end string, limit int64, descend bool, extra ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	ctx, cancel := t.e.ctx()
	defer cancel()
	opts := append([]clientv3.OpOption(nil), extra...) // linearizable: a daemon sees every write acknowledged before
	if end != "" {
		opts = append(opts, clientv3.WithRange(end))
	}
	if limit > 0 {
		opts = append(opts, clientv3.WithLimit(limit))
	}
	if descend {
		opts = append(opts, clientv3.WithSort(clientv3.SortByKey, clientv3.SortDescend))
	}
	if t.rev > 0 {
		opts = append(opts, clientv3.WithRev(t.rev))
	}
	resp, err := t.e.cli.Get(ctx, key, opts...)
	if err != nil {
		return nil, requestError{fmt.Errorf("etcd read %s: %w", key, err)}
	}
	if t.rev == 0 {
		t.rev = resp.Header.Revision
	}
	return resp, nil
}

// put buffers a write.
func (t *etcdTx) put(key string, val []byte, lease bool) {
	if _, ok := t.writes[key]; !ok {
		t.order = append(t.order, key)
	}
	t.writes[key] = etcdWrite{val: append([]byte(nil), val...), lease: lease}
	t.size += len(key) + len(val)
}

// mustCreate makes the commit fail unless key does not exist yet.
func (t *etcdTx) mustCreate(key string) {
	t.cmps = append(t.cmps, clientv3.Compare(clientv3.CreateRevision(key), "=", 0))
}

// bucket returns the bucket at path; only meta's existence is checked (it marks an
// initialised store), every other bucket exists through its keys.
func (t *etcdTx) bucket(path ...string) (kvBucket, bool, error) {
	b := t.e.newBucket(t, path)
	if len(path) == 1 && path[0] == pathMeta {
		v, err := t.get(b.pfx + string(metaMagicKey))
		if err != nil || v == nil {
			return nil, false, err
		}
	}
	return b, true, nil
}

// seqBucket reports whether a bucket's keys are 8-byte sequence numbers.
func seqBucket(path []string) bool {
	return len(path) > 1 && (path[0] == pathEvents || path[0] == pathProjections)
}

// createBucket returns the bucket at path: a prefix needs no creating.
func (t *etcdTx) createBucket(path ...string) (kvBucket, error) {
	return t.e.newBucket(t, path), nil
}

// newBucket is the bucket at path in transaction t.
func (e *etcdEngine) newBucket(t *etcdTx, path []string) etcdBucket {
	b := etcdBucket{t: t, pfx: e.bucketPrefix(path), seq: seqBucket(path)}
	if len(path) == 2 && path[0] == pathEvents {
		b.headKey = e.bucketPrefix([]string{pathHeads}) + path[1]
	}
	return b
}

// buckets answers that etcd keeps no list of buckets.
func (t *etcdTx) buckets(path ...string) ([]string, bool, error) { return nil, false, nil }

// writable reports whether this transaction may write.
func (t *etcdTx) writable() bool { return t.rw }

// fence makes the commit require that this daemon's lease holds branch's owner key.
func (t *etcdTx) fence(branch string) error {
	key := t.e.ownerKey(branch)
	if t.fenced[key] {
		return nil
	}
	t.fenced[key] = true
	if _, claimed := t.writes[key]; claimed {
		return nil // created in this transaction, under the lease
	}
	lease, err := t.e.liveLease()
	if err != nil {
		return fmt.Errorf("branch %s: this daemon lost its lease and has no new one: %w", branch, err)
	}
	t.fenceLease = lease
	t.cmps = append(t.cmps, clientv3.Compare(clientv3.LeaseValue(key), "=", lease))
	return nil
}

// claim makes this daemon the owner of a new branch, under its lease, and notes it among
// the node's branches (reclaimed when the daemon restarts).
func (t *etcdTx) claim(branch string) error {
	key := t.e.ownerKey(branch)
	t.mustCreate(key)
	t.put(key, []byte(t.e.node), true)
	t.put(t.e.ownedKey(branch), nil, false)
	return nil
}

// ownedKey notes, without a lease, that this node owns branch.
func (e *etcdEngine) ownedKey(branch string) string {
	return e.ownedPrefix() + url.PathEscape(branch)
}

// ownedPrefix is the prefix of the node's owned branches.
func (e *etcdEngine) ownedPrefix() string {
	return e.prefix + "nodes/" + url.PathEscape(e.node) + "/owned/"
}

// commit writes the buffered writes in one Txn guarded by the compares.
func (t *etcdTx) commit() error {
	if len(t.order) == 0 {
		return nil
	}
	if len(t.order) > t.e.maxOps || len(t.cmps) > t.e.maxOps || t.size > t.e.maxBytes {
		return fmt.Errorf("etcd transaction of %d writes, %d compares and %d bytes: %w (%d operations, %d bytes; set max-txn-ops and max-request-bytes in the store URL when the cluster allows more): nothing of it was stored",
			len(t.order), len(t.cmps), t.size, ErrTooLarge, t.e.maxOps, t.e.maxBytes)
	}
	var lease clientv3.LeaseID
	if t.leased() {
		var err error
		if lease, err = t.e.liveLease(); err != nil {
			return fmt.Errorf("etcd write: this daemon lost its lease and has no new one: %w", err)
		}
	}
	ops := make([]clientv3.Op, 0, len(t.order))
	for _, k := range t.order {
		w := t.writes[k]
		switch {
		case w.del:
			ops = append(ops, clientv3.OpDelete(k))
		case w.lease:
			ops = append(ops, clientv3.OpPut(k, string(w.val), clientv3.WithLease(lease)))
		default:
			ops = append(ops, clientv3.OpPut(k, string(w.val)))
		}
	}
	ctx, cancel := t.e.ctx()
	defer cancel()
	resp, err := t.e.cli.Txn(ctx).If(t.cmps...).Then(ops...).Commit()
	if err == nil && resp.Succeeded {
		t.rememberHeads(resp.Header.Revision)
	} else {
		t.forgetAll()
	}
	if err != nil {
		if errors.Is(err, rpctypes.ErrNoSpace) || strings.Contains(err.Error(), "database space exceeded") {
			ok, rerr := t.appliedAnyway()
			switch {
			case rerr == nil && ok:
				// etcd applies the write that crosses its quota, then answers NOSPACE (and
				// refuses the next writes): this one is stored, and is acknowledged.
				return nil
			case rerr != nil:
				return fmt.Errorf("etcd write of %d keys refused: %w, and whether etcd applied it first could not be read back (%v): restart exo once space is freed (etcdctl compact, defrag, alarm disarm) and it reads what was stored", len(ops), ErrNoSpace, rerr)
			}
			return fmt.Errorf("etcd write of %d keys refused: %w: nothing of it was stored; free space (etcdctl compact REV, etcdctl defrag) or raise the cluster's --quota-backend-bytes, then clear the alarm with etcdctl alarm disarm (%v)", len(ops), ErrNoSpace, err)
		}
		if errors.Is(err, rpctypes.ErrRequestTooLarge) || errors.Is(err, rpctypes.ErrTooManyOps) || strings.Contains(err.Error(), "message larger than max") {
			return fmt.Errorf("etcd write of %d keys and %d bytes refused: %w (the cluster allows less than the store URL's max-txn-ops %d and max-request-bytes %d say): nothing of it was stored (%v)",
				len(ops), t.size, ErrTooLarge, t.e.maxOps, t.e.maxBytes, err)
		}
		if errors.Is(err, rpctypes.ErrLeaseNotFound) {
			t.e.dropLease(lease) // it ended before its loss was noticed: run again under a new one
			return errConflict
		}
		return requestError{fmt.Errorf("etcd write of %d keys: %w", len(ops), err)}
	}
	if resp.Succeeded {
		return nil
	}
	return t.whyFailed()
}

// appliedAnyway reads back the keys of a transaction etcd refused with NOSPACE: etcd refuses a
// write before it is proposed when the cluster is already over its quota (nothing stored), but
// applies the one that crosses the quota and answers NOSPACE all the same. It is applied when
// every written key holds what the transaction wrote (deleted ones are gone) and every put key
// was last modified at one revision, past the one the transaction read at: a transaction writes
// all its keys at one revision.
func (t *etcdTx) appliedAnyway() (bool, error) {
	ctx, cancel := t.e.ctx()
	defer cancel()
	ops := make([]clientv3.Op, 0, len(t.order))
	for _, k := range t.order {
		ops = append(ops, clientv3.OpGet(k))
	}
	resp, err := t.e.cli.Txn(ctx).Then(ops...).Commit() // reads pass the quota
	if err != nil {
		return false, fmt.Errorf("read back a write etcd refused: %w", err)
	}
	var rev int64
	for i, k := range t.order {
		w := t.writes[k]
		kvs := resp.Responses[i].GetResponseRange().GetKvs()
		if w.del {
			if len(kvs) != 0 {
				return false, nil
			}
			continue
		}
		if len(kvs) != 1 || !bytes.Equal(kvs[0].Value, w.val) || kvs[0].ModRevision <= t.rev || rev != 0 && kvs[0].ModRevision != rev {
			return false, nil
		}
		rev = kvs[0].ModRevision
	}
	return rev != 0, nil
}

// leased reports whether the transaction writes a key under the daemon's lease.
func (t *etcdTx) leased() bool {
	for _, w := range t.writes {
		if w.lease {
			return true
		}
	}
	return false
}

// whyFailed tells a lost ownership (ErrNotOwner) from a conflicting writer (errConflict). An
// owner key gone because the lease the fence compared with ended is not a lost ownership: the
// transaction runs again under a new lease (whose grant reclaims the key).
func (t *etcdTx) whyFailed() error {
	lease := t.e.currentLease()
	for key := range t.fenced {
		if _, claimed := t.writes[key]; claimed {
			continue
		}
		ctx, cancel := t.e.ctx()
		resp, err := t.e.cli.Get(ctx, key)
		cancel()
		if err != nil {
			return requestError{fmt.Errorf("etcd read %s: %w", key, err)}
		}
		if len(resp.Kvs) == 0 && t.fenceLease != 0 && (lease != t.fenceLease || t.e.leaseExpired(lease)) {
			t.e.dropLease(t.fenceLease) // lost: run again under a new lease, which reclaims the key
			return errConflict
		}
		if len(resp.Kvs) == 0 || clientv3.LeaseID(resp.Kvs[0].Lease) != lease {
			owner := "nobody (its owner's lease expired)"
			if len(resp.Kvs) > 0 {
				owner = "daemon " + string(resp.Kvs[0].Value)
			}
			branch, _ := url.PathUnescape(strings.TrimPrefix(key, t.e.prefix+"owners/"))
			return fmt.Errorf("append to %s: it is owned by %s: %w", branch, owner, ErrNotOwner)
		}
	}
	if err := t.whyChanged(); err != nil {
		return err
	}
	return errConflict
}

// etcdBucket is a key prefix seen through kvBucket; sequence keys are stored as 20 zero-padded
// decimal digits, so the cluster's keys read as exo/v1/<ns>/events/<branch>/00000000000000000042.
type etcdBucket struct {
	t   *etcdTx
	pfx string
	seq bool
	// headKey, for a branch's events, is its head record: where the last event should be.
	headKey string
}

// etcdKey turns a store key into an etcd key.
func (b etcdBucket) etcdKey(key []byte) string {
	if b.seq && len(key) == 8 {
		return b.pfx + fmt.Sprintf("%020d", binary.BigEndian.Uint64(key))
	}
	return b.pfx + string(key)
}

// storeKey turns an etcd key of this bucket back into a store key.
func (b etcdBucket) storeKey(k string) []byte {
	rest := strings.TrimPrefix(k, b.pfx)
	if b.seq {
		if n, err := strconv.ParseUint(rest, 10, 64); err == nil && len(rest) == 20 {
			return seqKey(n)
		}
	}
	return []byte(rest)
}

// end is the first key after the bucket's prefix.
func (b etcdBucket) end() string { return clientv3.GetPrefixRangeEnd(b.pfx) }

func (b etcdBucket) get(key []byte) ([]byte, error) { return b.t.get(b.etcdKey(key)) }

// last returns the greatest key. etcd cannot scan backwards (a sorted range reads every key
// of the range), so a branch's events are found from its head record: the event it names is
// there and none after it — two ascending reads, whatever the branch's length. Only when that
// does not hold (damage) is the whole range read.
func (b etcdBucket) last() ([]byte, []byte, error) {
	if b.headKey != "" {
		hv, err := b.t.get(b.headKey)
		if err != nil {
			return nil, nil, err
		}
		if len(hv) == headRecordLen && !b.deletes() {
			k, v, ok, err := b.lastFrom(b.etcdKey(hv[:8]))
			if err != nil {
				return nil, nil, err
			}
			if ok {
				if own := b.lastOwn(); own > k {
					k, v = own, b.t.writes[own].val
				}
				return b.storeKey(k), v, nil
			}
		}
	}
	return b.below(b.end())
}

// deletes reports whether the transaction deletes keys of this bucket.
func (b etcdBucket) deletes() bool {
	for k, w := range b.t.writes {
		if w.del && strings.HasPrefix(k, b.pfx) {
			return true
		}
	}
	return false
}

// lastOwn returns the greatest key the transaction itself writes in the bucket ("" if none).
func (b etcdBucket) lastOwn() string {
	best := ""
	for k, w := range b.t.writes {
		if !w.del && strings.HasPrefix(k, b.pfx) && k > best {
			best = k
		}
	}
	return best
}

// lastFrom reports the last stored key when it is from (present, nothing stored after it);
// ok is false otherwise.
func (b etcdBucket) lastFrom(from string) (string, []byte, bool, error) {
	if v, ok := b.lastFromMemory(from); ok {
		return from, v, true, nil
	}
	resp, err := b.t.rangeReq(from, b.end(), 2, false)
	if err != nil {
		return "", nil, false, err
	}
	if len(resp.Kvs) != 1 || string(resp.Kvs[0].Key) != from {
		return "", nil, false, nil
	}
	return from, resp.Kvs[0].Value, true, nil
}

func (b etcdBucket) atOrBefore(key []byte) ([]byte, []byte, error) {
	return b.below(b.etcdKey(key) + "\x00")
}

// below returns the greatest key of the bucket less than end, with the transaction's own
// writes taken into account.
func (b etcdBucket) below(end string) ([]byte, []byte, error) {
	best, bestVal := "", []byte(nil)
	for k, w := range b.t.writes {
		if !w.del && strings.HasPrefix(k, b.pfx) && k < end && k > best {
			best, bestVal = k, w.val
		}
	}
	for upper := end; ; {
		resp, err := b.t.rangeReq(b.pfx, upper, etcdPage, true)
		if err != nil {
			return nil, nil, err
		}
		for _, kv := range resp.Kvs {
			k := string(kv.Key)
			if w, ok := b.t.writes[k]; ok && w.del {
				continue
			}
			if k > best {
				best, bestVal = k, kv.Value
			}
			return b.storeKey(best), bestVal, nil
		}
		if !resp.More || len(resp.Kvs) == 0 {
			break
		}
		upper = string(resp.Kvs[len(resp.Kvs)-1].Key)
	}
	if best == "" {
		return nil, nil, nil
	}
	return b.storeKey(best), bestVal, nil
}

// scan pages through the bucket from key from, merging the transaction's own writes.
func (b etcdBucket) scan(from []byte, fn func(k, v []byte) (bool, error)) error {
	return b.scanWith(from, nil, fn)
}

// keys is scan without the values: the cluster sends only the keys.
func (b etcdBucket) keys(from []byte, fn func(k []byte) (bool, error)) error {
	return b.scanWith(from, []clientv3.OpOption{clientv3.WithKeysOnly()}, func(k, _ []byte) (bool, error) { return fn(k) })
}

// scanWith is scan with extra options on its range requests.
func (b etcdBucket) scanWith(from []byte, extra []clientv3.OpOption, fn func(k, v []byte) (bool, error)) error {
	start := b.pfx
	if from != nil {
		start = b.etcdKey(from)
	}
	var mine []string
	for k := range b.t.writes {
		if strings.HasPrefix(k, b.pfx) && k >= start {
			mine = append(mine, k)
		}
	}
	sort.Strings(mine)
	emit := func(k string, v []byte) (bool, error) {
		if w, ok := b.t.writes[k]; ok {
			if w.del {
				return true, nil
			}
			v = w.val
		}
		return fn(b.storeKey(k), v)
	}
	for lower := start; ; {
		resp, err := b.t.rangeReq(lower, b.end(), etcdPage, false, extra...)
		if err != nil {
			return err
		}
		for _, kv := range resp.Kvs {
			k := string(kv.Key)
			for len(mine) > 0 && mine[0] < k { // own writes before this key
				if more, err := emit(mine[0], nil); err != nil || !more {
					return err
				}
				mine = mine[1:]
			}
			if len(mine) > 0 && mine[0] == k {
				mine = mine[1:]
			}
			if more, err := emit(k, kv.Value); err != nil || !more {
				return err
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			break
		}
		lower = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
	for _, k := range mine {
		if more, err := emit(k, nil); err != nil || !more {
			return err
		}
	}
	return nil
}

func (b etcdBucket) put(key, val []byte) error {
	b.t.put(b.etcdKey(key), val, false)
	return nil
}

func (b etcdBucket) create(key, val []byte) error {
	k := b.etcdKey(key)
	v, err := b.t.get(k)
	if err != nil {
		return err
	}
	if v != nil {
		return errKeyExists
	}
	b.t.mustCreate(k)
	b.t.put(k, val, false)
	return nil
}

func (b etcdBucket) appendKey(key, val []byte) error {
	k := b.etcdKey(key)
	b.t.mustCreate(k)
	b.t.put(k, val, false)
	return nil
}

func (b etcdBucket) del(key []byte) error {
	k := b.etcdKey(key)
	if _, ok := b.t.writes[k]; !ok {
		b.t.order = append(b.t.order, k)
	}
	b.t.writes[k] = etcdWrite{del: true}
	return nil
}
