package store

import (
	"encoding/binary"
	"fmt"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// A daemon appends to the branches it owns, and nobody else may (the fence): what it last
// wrote there is what is stored. So the engine remembers, per branch, the head record and the
// last event it committed, with the revision they were committed at, and the next append takes
// them from memory instead of reading them: the commit's compares (the head unchanged since
// that revision, the next event key not yet there, the owner key under this daemon's lease)
// make it fail, and run again on what is stored, if anything changed meanwhile. An append to
// an owned branch then costs the cluster one transaction and no read.
//
// A branch not yet appended to has no head record: its branch record holds its head (schema
// 4). Its first append reads the head key absent, so its commit requires it still absent, and
// requires the branch record, which it may take from the store's cache, as created (see
// unchanged): a concurrent first append, or a rewritten record, makes it fail.

// writtenHead is the head record and last event of a branch as this engine committed them.
type writtenHead struct {
	head    []byte
	rev     int64
	lastKey string
	last    []byte
}

// cachedHead returns what this engine last committed under head key key.
func (e *etcdEngine) cachedHead(key string) (writtenHead, bool) {
	e.wmu.Lock()
	defer e.wmu.Unlock()
	w, ok := e.written[key]
	return w, ok
}

// forgetHeads drops what the engine remembers of the head keys a failed commit used.
func (e *etcdEngine) forgetHeads(keys []string) {
	e.wmu.Lock()
	defer e.wmu.Unlock()
	for _, k := range keys {
		delete(e.written, k)
	}
}

// rememberHeads notes the head records (and the events they point to) a commit wrote at rev.
func (t *etcdTx) rememberHeads(rev int64) {
	hp := t.e.bucketPrefix([]string{pathHeads})
	t.e.wmu.Lock()
	defer t.e.wmu.Unlock()
	if t.e.written == nil {
		t.e.written = map[string]writtenHead{}
	}
	for _, k := range t.order {
		w := t.writes[k]
		if w.del || !strings.HasPrefix(k, hp) || len(w.val) != headRecordLen {
			if w.del {
				delete(t.e.written, k)
			}
			continue
		}
		branch := k[len(hp):]
		last := t.e.bucketPrefix([]string{pathEvents, branch}) + fmt.Sprintf("%020d", binary.BigEndian.Uint64(w.val[:8]))
		lw, ok := t.writes[last]
		if !ok || lw.del {
			delete(t.e.written, k)
			continue
		}
		if had, ok := t.e.written[k]; ok && had.rev > rev {
			// A commit acknowledged later but applied earlier than the one remembered (two
			// groups are in flight at once): what is remembered is newer, and stays.
			continue
		}
		t.e.written[k] = writtenHead{head: w.val, rev: rev, lastKey: last, last: lw.val}
	}
}

// fromMemory answers a read of a head key from what this engine committed there, in a
// read-write transaction, with the compare a read would add.
func (t *etcdTx) fromMemory(key string) ([]byte, bool) {
	if !t.rw || t.fromCluster {
		return nil, false
	}
	w, ok := t.e.cachedHead(key)
	if !ok || t.rev != 0 && w.rev > t.rev {
		// Committed after the revision this transaction reads the cluster at: its head with
		// the events read at that revision would be two moments of the branch (its head past
		// its last event, which reads as lost events). The read goes to the cluster, at rev.
		return nil, false
	}
	t.cache[key] = w.head
	if t.remembered == nil {
		t.remembered = map[string]writtenHead{}
	}
	t.remembered[key] = w
	if !t.seen[key] {
		t.seen[key] = true
		t.cmps = append(t.cmps, clientv3.Compare(clientv3.ModRevision(key), "=", w.rev))
	}
	return w.head, true
}

// forgetAll drops what the engine remembers of the head keys this transaction used or wrote:
// its commit failed, or its outcome is unknown.
func (t *etcdTx) forgetAll() {
	hp := t.e.bucketPrefix([]string{pathHeads})
	keys := make([]string, 0, len(t.remembered))
	for k := range t.remembered {
		keys = append(keys, k)
	}
	for _, k := range t.order {
		if strings.HasPrefix(k, hp) {
			keys = append(keys, k)
		}
	}
	t.e.forgetHeads(keys)
}

// lastFromMemory answers lastFrom for a branch whose head came from memory, from the entry the
// head was read from: the engine's may have been replaced since by a concurrent commit, and
// a head and last event of two different commits would read as lost events.
func (b etcdBucket) lastFromMemory(from string) ([]byte, bool) {
	if b.headKey == "" || !b.t.rw {
		return nil, false
	}
	if w, ok := b.t.remembered[b.headKey]; ok && w.lastKey == from {
		return w.last, true
	}
	return nil, false
}

// unchanged makes the commit require key to be at its first version: created, never
// rewritten (nor deleted and created again).
func (t *etcdTx) unchanged(key []byte, path ...string) {
	k := t.e.newBucket(t, path).etcdKey(key)
	if _, mine := t.writes[k]; mine || t.seen[k] {
		return // written here, or read here with its own compare
	}
	t.seen[k] = true
	t.kept = append(t.kept, k)
	t.cmps = append(t.cmps, clientv3.Compare(clientv3.Version(k), "=", 1))
}

// whyChanged returns the damage of a key the transaction required unchanged that is not at
// its first version (nil when all are): running again would fail again.
func (t *etcdTx) whyChanged() error {
	for _, k := range t.kept {
		ctx, cancel := t.e.ctx()
		resp, err := t.e.cli.Get(ctx, k)
		cancel()
		if err != nil {
			return requestError{fmt.Errorf("etcd read %s: %w", k, err)}
		}
		if len(resp.Kvs) == 0 {
			return fmt.Errorf("%s was removed after it was created: %w (%s)", k, ErrCorrupt, wayOut)
		}
		if v := resp.Kvs[0].Version; v != 1 {
			return fmt.Errorf("%s was rewritten after it was created (version %d): %w (%s)", k, v, ErrCorrupt, wayOut)
		}
	}
	return nil
}
