package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// ChangeKind says what a Change is about.
type ChangeKind string

// The kinds of change a watch reports.
const (
	// ChangeHead: a branch's head moved (events were appended). A branch is created without
	// one (its head record comes with its first append); its session's record says it exists.
	ChangeHead ChangeKind = "head"
	// ChangeRecord: a node's record (a session, …) was written or deleted.
	ChangeRecord ChangeKind = "record"
	// ChangeNode: a daemon joined the cluster or left it (its lease ended).
	ChangeNode ChangeKind = "node"
	// ChangeOwner: a branch was claimed (Node names the daemon) or its owner let it go or
	// left (Deleted).
	ChangeOwner ChangeKind = "owner"
)

// Change is one thing that changed in a shared store.
type Change struct {
	Kind ChangeKind `json:"kind"`
	// Node is the daemon whose record or presence changed (record and node changes).
	Node string `json:"node,omitempty"`
	// Bucket and Key name a changed record.
	Bucket RecordBucket `json:"bucket,omitempty"`
	Key    string       `json:"key,omitempty"`
	// Branch and Seq name a moved head.
	Branch string `json:"branch,omitempty"`
	Seq    uint64 `json:"seq,omitempty"`
	// Deleted is set when the record was deleted or the node left.
	Deleted bool `json:"deleted,omitempty"`
	// Value is the record's new value.
	Value []byte `json:"-"`
	// Events, on a moved head, are the events the move appended, in seq order, as the watch
	// itself carried them (no read): those of the head's own transaction. It is empty after a
	// re-list (Resync), or when they could not be decoded: the receiver reads them.
	Events []Event `json:"-"`
	// Resync is set on changes reported by a re-list after the watch fell behind a
	// compaction (what is there, and, Deleted, what the watch knew of that is gone): the
	// receiver compares them with what it saw and reads what it missed.
	Resync bool `json:"resync,omitempty"`
	// Rev is the cluster revision of the change.
	Rev int64 `json:"rev"`
}

// Revision returns the cluster's current revision (0 for a local store), a point to watch from.
func (s *Store) Revision() (int64, error) {
	e, ok := s.kv.(*etcdEngine)
	if !ok {
		return 0, nil
	}
	ctx, cancel := e.ctx()
	defer cancel()
	resp, err := e.cli.Get(ctx, e.prefix+"meta/", clientv3.WithKeysOnly(), clientv3.WithLimit(1))
	if err != nil {
		return 0, fmt.Errorf("cluster revision: %w", err)
	}
	return resp.Header.Revision, nil
}

// Watch reports the changes made to a shared store after revision rev (0: from now): heads,
// records of every node, daemons joining and leaving. When the watch falls behind a
// compaction it re-lists heads, records and nodes (changes marked Resync), reports as deleted
// (also marked Resync) those it knew of that are gone, and goes on from the list's revision,
// so nothing is lost. (Deletions before the watch started are not known: a rev already
// compacted when Watch is called starts from a plain re-list.) The channel closes when ctx ends. On a local store it
// fails: there is nobody else to watch.
func (s *Store) Watch(ctx context.Context, rev int64) (<-chan Change, error) {
	e, ok := s.kv.(*etcdEngine)
	if !ok {
		return nil, errors.New("watch: the store is not shared (bbolt)")
	}
	if rev == 0 {
		r, err := s.Revision()
		if err != nil {
			return nil, err
		}
		rev = r
	}
	out := make(chan Change, 256)
	go e.watchLoop(ctx, rev, out, s.codec.Decode)
	return out, nil
}

// watchLoop watches from rev until ctx ends, re-listing after a compaction. It keeps the keys
// it knows to exist (listed at rev, then followed), so a re-list also reports, as deleted,
// those that went while the watch was behind.
//
// Events reach it with their values (the watch carries every key it reports): those of one
// transaction are put on the head change of their branch, so a follower learns of an append
// without reading it.
func (e *etcdEngine) watchLoop(ctx context.Context, rev int64, out chan<- Change, decode func(string, []byte) (Event, error)) {
	defer close(out)
	known, ok := e.startKnown(ctx, rev)
	if !ok { // rev is compacted already: start from a re-list
		known = map[string]bool{}
		if r, err := e.relist(ctx, out, known); err == nil {
			rev = r
		}
	}
	for ctx.Err() == nil {
		wctx := clientv3.WithRequireLeader(ctx)
		ch := e.cli.Watch(wctx, e.prefix, clientv3.WithPrefix(), clientv3.WithRev(rev+1))
		for resp := range ch {
			if resp.CompactRevision > 0 || errors.Is(resp.Err(), rpctypes.ErrCompacted) {
				r, err := e.relist(ctx, out, known)
				if err == nil {
					rev = r
				}
				break
			}
			if resp.Err() != nil {
				break
			}
			appended := e.appended(resp.Events, decode)
			for _, ev := range resp.Events {
				key, deleted := string(ev.Kv.Key), ev.Type == clientv3.EventTypeDelete
				c, ok := e.change(key, ev.Kv.Value, deleted)
				if !ok {
					continue
				}
				if c.Kind == ChangeHead && !deleted {
					c.Events = appended[ev.Kv.ModRevision][c.Branch]
				}
				switch {
				case c.Kind == ChangeOwner: // not re-listed: owners follow from the nodes
				case deleted:
					delete(known, key)
				default:
					known[key] = true
				}
				c.Rev = ev.Kv.ModRevision
				select {
				case out <- c:
				case <-ctx.Done():
					return
				}
			}
			rev = max(rev, resp.Header.Revision)
		}
		select { // the watch ended (no leader, connection lost): try again shortly
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// startKnown lists the watched keys at rev, trying again while the cluster does not answer;
// ok is false when rev is compacted (or ctx ended).
func (e *etcdEngine) startKnown(ctx context.Context, rev int64) (map[string]bool, bool) {
	for {
		known, err := e.listAt(ctx, rev)
		if err == nil {
			return known, true
		}
		if errors.Is(err, rpctypes.ErrCompacted) {
			return nil, false
		}
		select {
		case <-ctx.Done():
			return nil, false
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// relistPrefixes are the prefixes a re-list reads: heads, and the nodes' records and presence.
func (e *etcdEngine) relistPrefixes() []string {
	return []string{e.prefix + pathHeads + "/", e.prefix + "nodes/"}
}

// listAt returns the watched keys that exist at revision rev (keys only).
func (e *etcdEngine) listAt(ctx context.Context, rev int64) (map[string]bool, error) {
	known := map[string]bool{}
	for _, pfx := range e.relistPrefixes() {
		rctx, cancel := e.ctx()
		resp, err := e.cli.Get(rctx, pfx, clientv3.WithPrefix(), clientv3.WithKeysOnly(), clientv3.WithRev(rev))
		cancel()
		if err != nil {
			return nil, fmt.Errorf("list watched keys at revision %d: %w", rev, err)
		}
		for _, kv := range resp.Kvs {
			if _, ok := e.change(string(kv.Key), nil, false); ok {
				known[string(kv.Key)] = true
			}
		}
	}
	return known, nil
}

// relist reports the current heads, records and nodes as Resync changes, then, as deleted,
// those of known that are gone (sessions removed or archived, daemons that left, while the
// watch was behind); known becomes what it read. It returns the revision it read at.
func (e *etcdEngine) relist(ctx context.Context, out chan<- Change, known map[string]bool) (int64, error) {
	rctx, cancel := e.ctx()
	defer cancel()
	var rev int64
	var changes []Change
	now := map[string]bool{}
	for _, pfx := range e.relistPrefixes() {
		opts := []clientv3.OpOption{clientv3.WithPrefix()}
		if rev > 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		resp, err := e.cli.Get(rctx, pfx, opts...)
		if err != nil {
			return 0, err
		}
		rev = resp.Header.Revision
		for _, kv := range resp.Kvs {
			c, ok := e.change(string(kv.Key), kv.Value, false)
			if !ok {
				continue
			}
			now[string(kv.Key)] = true
			c.Resync, c.Rev = true, kv.ModRevision
			changes = append(changes, c)
		}
	}
	var gone []string
	for key := range known {
		if !now[key] {
			gone = append(gone, key)
		}
	}
	sort.Strings(gone)
	for _, key := range gone {
		c, _ := e.change(key, nil, true)
		c.Resync, c.Rev = true, rev
		changes = append(changes, c)
	}
	for _, c := range changes {
		select {
		case out <- c:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	clear(known)
	for key := range now {
		known[key] = true
	}
	return rev, nil
}

// appended decodes the events a watch response carries, by revision and branch, in seq order.
// One that cannot be decoded drops its branch's events of that revision: the receiver reads
// them, and finds what is wrong.
func (e *etcdEngine) appended(evs []*clientv3.Event, decode func(string, []byte) (Event, error)) map[int64]map[string][]Event {
	var out map[int64]map[string][]Event
	bad := map[string]bool{}
	pfx := e.prefix + pathEvents + "/"
	for _, ev := range evs {
		key := string(ev.Kv.Key)
		if ev.Type != clientv3.EventTypePut || !strings.HasPrefix(key, pfx) {
			continue
		}
		esc, seq, ok := strings.Cut(key[len(pfx):], "/")
		if !ok || len(seq) != 20 {
			continue
		}
		br, err := url.PathUnescape(esc)
		if err != nil {
			continue
		}
		rev := ev.Kv.ModRevision
		at := fmt.Sprint(rev, "/", br)
		if bad[at] {
			continue
		}
		evt, err := decode(br, ev.Kv.Value)
		if n, perr := strconv.ParseUint(seq, 10, 64); err != nil || perr != nil || n != evt.Seq {
			bad[at] = true
			delete(out[rev], br)
			continue
		}
		if out == nil {
			out = map[int64]map[string][]Event{}
		}
		if out[rev] == nil {
			out[rev] = map[string][]Event{}
		}
		out[rev][br] = append(out[rev][br], evt)
	}
	for _, byBranch := range out {
		for _, list := range byBranch {
			sort.Slice(list, func(i, j int) bool { return list[i].Seq < list[j].Seq })
		}
	}
	return out
}

// change turns a watched key into a Change; ok is false for keys nobody needs to hear of
// (events themselves: their head says they are there).
func (e *etcdEngine) change(key string, val []byte, deleted bool) (Change, bool) {
	rest := strings.TrimPrefix(key, e.prefix)
	parts := strings.SplitN(rest, "/", 4)
	switch {
	case len(parts) == 2 && parts[0] == pathHeads:
		br, _ := url.PathUnescape(parts[1])
		c := Change{Kind: ChangeHead, Branch: br, Deleted: deleted}
		if len(val) == headRecordLen {
			c.Seq = keySeq(val[:8])
		}
		return c, true
	case len(parts) == 2 && parts[0] == "owners":
		br, _ := url.PathUnescape(parts[1])
		return Change{Kind: ChangeOwner, Branch: br, Node: string(val), Deleted: deleted}, true
	case len(parts) == 3 && parts[0] == "nodes" && parts[2] == "alive":
		n, _ := url.PathUnescape(parts[1])
		return Change{Kind: ChangeNode, Node: n, Deleted: deleted}, true
	case len(parts) == 4 && parts[0] == "nodes" && isRecordBucket(parts[2]):
		n, _ := url.PathUnescape(parts[1])
		b, _ := url.PathUnescape(parts[2])
		return Change{Kind: ChangeRecord, Node: n, Bucket: RecordBucket(b), Key: parts[3], Deleted: deleted, Value: val}, true
	}
	return Change{}, false
}

// PeerRecord is a record of another daemon on a shared store.
type PeerRecord struct {
	Node  string
	Key   string
	Value []byte
}

// PeerRecords lists bucket's records of every other daemon on a shared store (nothing on a
// local one).
func (s *Store) PeerRecords(b RecordBucket) ([]PeerRecord, error) {
	e, ok := s.kv.(*etcdEngine)
	if !ok {
		return nil, nil
	}
	ctx, cancel := e.ctx()
	defer cancel()
	resp, err := e.cli.Get(ctx, e.prefix+"nodes/", clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("list peers' %s: %w", b, err)
	}
	var out []PeerRecord
	for _, kv := range resp.Kvs {
		c, ok := e.change(string(kv.Key), kv.Value, false)
		if !ok || c.Kind != ChangeRecord || c.Bucket != b || c.Node == e.node {
			continue
		}
		out = append(out, PeerRecord{Node: c.Node, Key: c.Key, Value: c.Value})
	}
	return out, nil
}

// Adopt moves a record of node (a daemon whose lease ended) into this daemon's records, in one
// transaction that fails if it changed meanwhile: the take-over of a session.
func (s *Store) Adopt(b RecordBucket, node, key string) ([]byte, error) {
	e, ok := s.kv.(*etcdEngine)
	if !ok {
		return nil, errors.New("adopt: the store is not shared (bbolt)")
	}
	from := e.prefix + "nodes/" + url.PathEscape(node) + "/" + url.PathEscape(string(b)) + "/" + key
	to := e.bucketPrefix([]string{string(b)}) + key
	ctx, cancel := e.ctx()
	defer cancel()
	resp, err := e.cli.Get(ctx, from)
	if err != nil {
		return nil, fmt.Errorf("adopt %s/%s of %s: %w", b, key, node, err)
	}
	if len(resp.Kvs) == 0 {
		return nil, fmt.Errorf("adopt %s/%s of %s: %w", b, key, node, ErrNotFound)
	}
	kv := resp.Kvs[0]
	tr, err := e.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(from), "=", kv.ModRevision)).
		Then(clientv3.OpPut(to, string(kv.Value)), clientv3.OpDelete(from)).Commit()
	if err != nil {
		return nil, fmt.Errorf("adopt %s/%s of %s: %w", b, key, node, err)
	}
	if !tr.Succeeded {
		return nil, fmt.Errorf("adopt %s/%s of %s: it changed meanwhile: %w", b, key, node, ErrNotOwner)
	}
	return kv.Value, nil
}
