package store

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"exo/store/failpoint"
)

// Branch describes one branch: its parent and the parent seq it forked at (zero for a root).
// A branch's history is the parent's events 1..ForkSeq followed by its own events.
type Branch struct {
	ID      string    `json:"id"`
	Parent  string    `json:"parent,omitempty"`
	ForkSeq uint64    `json:"fork_seq,omitempty"`
	Created time.Time `json:"created"`
	// forkHash, when inRecord (a branch created by schema 4), is its head as created: the
	// hash of event ForkSeq (zero for a root), which stands until the first append writes the
	// branch's head record. An older branch's head record was written with it.
	forkHash Hash
	inRecord bool
}

// branchRecord is a branch as stored: its metadata and, from schema 4, its head as created.
type branchRecord struct {
	Branch
	ForkHash *Hash `json:"fork_hash,omitempty"`
}

// encodeBranch encodes a branch record, as encoding/json encodes a branchRecord (a test and
// FuzzEncodeBranch hold the two equal) but without reflection: it is most of what a fork
// computes.
func encodeBranch(b Branch) ([]byte, error) {
	if !plainJSON(b.ID) || !plainJSON(b.Parent) {
		return marshalBranch(b)
	}
	// The fixed parts: the names and quotes (61 bytes), fork_seq's 20 digits, created's 35
	// (RFC 3339 with nanoseconds, the longest a time before year 10000 writes) and the
	// hash's hex: one allocation for any record.
	buf := make([]byte, 0, 61+20+35+2*len(b.forkHash)+len(b.ID)+len(b.Parent))
	buf = append(append(append(buf, `{"id":"`...), b.ID...), '"')
	if b.Parent != "" {
		buf = append(append(append(buf, `,"parent":"`...), b.Parent...), '"')
	}
	if b.ForkSeq != 0 {
		buf = strconv.AppendUint(append(buf, `,"fork_seq":`...), b.ForkSeq, 10)
	}
	buf, err := b.Created.AppendText(append(buf, `,"created":"`...))
	if err != nil {
		return marshalBranch(b) // a time JSON cannot hold: encoding/json says why
	}
	buf = append(buf, '"')
	if b.inRecord {
		buf = append(hex.AppendEncode(append(buf, `,"fork_hash":"`...), b.forkHash[:]), '"')
	}
	return append(buf, '}'), nil
}

// plainJSON reports whether encoding/json writes s as it is between quotes: printable ASCII
// without the characters it escapes.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// marshalBranch encodes a branch record with encoding/json.
func marshalBranch(b Branch) ([]byte, error) {
	r := branchRecord{Branch: b}
	if b.inRecord {
		r.ForkHash = &b.forkHash
	}
	raw, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode branch %s: %w", b.ID, err)
	}
	return raw, nil
}

// decodeBranch decodes a branch record stored under key.
func decodeBranch(key, raw []byte) (Branch, error) {
	var r branchRecord
	if err := json.Unmarshal(raw, &r); err != nil {
		return Branch{}, fmt.Errorf("decode branch %s: %v: %w", key, err, ErrCorrupt)
	}
	b := r.Branch
	if r.ForkHash != nil {
		b.forkHash, b.inRecord = *r.ForkHash, true
	}
	return b, nil
}

// NewBranch creates an empty root branch with the given id.
func (t *Tx) NewBranch(id string) (Branch, error) {
	return t.createBranch(Branch{ID: id, Created: now(), inRecord: true})
}

// Fork creates branch id whose history is parent's events 1..seq followed by its own. It is
// O(1) in the length of the history: nothing is copied. seq may be 0 (an empty history) up to
// the parent's head.
func (t *Tx) Fork(id, parent string, seq uint64) (Branch, error) {
	head, h, err := t.Head(parent)
	if err != nil {
		return Branch{}, err
	}
	if seq > head {
		return Branch{}, fmt.Errorf("fork %s at %d: head is %d: %w", parent, seq, head, ErrBadSeq)
	}
	if seq < head {
		if h, err = t.forkHash(Branch{Parent: parent, ForkSeq: seq}); err != nil {
			return Branch{}, fmt.Errorf("fork %s at %d: %w", parent, seq, err)
		}
	}
	return t.createBranch(Branch{ID: id, Parent: parent, ForkSeq: seq, Created: now(), forkHash: h, inRecord: true})
}

// createBranch stores a branch record, which holds the branch's head (the fork point's hash)
// until its first append writes the head record and creates its events bucket: a fork is one
// put in one bucket.
func (t *Tx) createBranch(b Branch) (Branch, error) {
	if b.ID == "" {
		return b, fmt.Errorf("create branch: empty id")
	}
	bb, err := t.top(pathBranches)
	if err != nil {
		return b, err
	}
	raw, err := encodeBranch(b)
	if err != nil {
		return b, err
	}
	if err := bb.create([]byte(b.ID), raw); errors.Is(err, errKeyExists) {
		return b, fmt.Errorf("create branch %s: %w", b.ID, ErrBranchExists)
	} else if err != nil {
		return b, fmt.Errorf("store branch %s: %w", b.ID, err)
	}
	if err := t.tx.claim(b.ID); err != nil {
		return b, fmt.Errorf("create branch %s: %w", b.ID, err)
	}
	if err := t.recordSchema(); err != nil {
		return b, fmt.Errorf("create branch %s: %w", b.ID, err)
	}
	// Tests kill exo here: nothing is committed.
	failpoint.Hit("store.branch.before-commit")
	t.branches = append(t.branches, b) // cached once the transaction commits
	return b, nil
}

// recordSchema records SchemaVersion in an older file (version 2 or 3, read as it is) before it
// gets a branch of the current layout: without an events bucket (version 3) and with its head
// in its record (version 4). An older build then refuses the file instead of taking such a
// branch for damage.
func (t *Tx) recordSchema() error {
	if t.s.schemaCurrent.Load() {
		return nil
	}
	v, err := schemaOf(t.tx)
	if err != nil || v >= SchemaVersion {
		return err
	}
	meta, err := t.top(pathMeta)
	if err != nil {
		return err
	}
	return meta.put(metaSchemaKey, seqKey(SchemaVersion))
}

// top opens a top-level bucket; one missing is damage.
func (t *Tx) top(name string) (kvBucket, error) {
	b, ok, err := t.tx.bucket(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("bucket %s is missing: %w (%s)", name, ErrCorrupt, wayOut)
	}
	return b, nil
}

// Branch returns a branch's metadata.
func (t *Tx) Branch(id string) (Branch, error) {
	if v, ok := t.s.branches.Load(id); ok {
		return v.(Branch), nil
	}
	bb, err := t.top(pathBranches)
	if err != nil {
		return Branch{}, err
	}
	raw, err := bb.get([]byte(id))
	if err != nil {
		return Branch{}, fmt.Errorf("branch %q: %w", id, err)
	}
	if raw == nil {
		return Branch{}, fmt.Errorf("branch %q: %w", id, ErrNoBranch)
	}
	b, err := decodeBranch([]byte(id), raw)
	if err != nil {
		return Branch{}, err
	}
	if t.tx.writable() {
		t.branches = append(t.branches, b) // may still roll back: cached once it commits
		return b, nil
	}
	t.s.branches.Store(id, b)
	return b, nil
}

// Branches lists every branch in the store.
func (t *Tx) Branches() ([]Branch, error) {
	bb, err := t.top(pathBranches)
	if err != nil {
		return nil, err
	}
	var out []Branch
	err = bb.scan(nil, func(k, v []byte) (bool, error) {
		b, err := decodeBranch(k, v)
		if err != nil {
			return false, err
		}
		out = append(out, b)
		return true, nil
	})
	return out, err
}

// ownEvents returns the bucket of a branch's own events.
func (t *Tx) ownEvents(id string) (kvBucket, error) {
	b, ok, err := t.tx.bucket(pathEvents, id)
	if err != nil {
		return nil, fmt.Errorf("events of branch %q: %w", id, err)
	}
	if !ok {
		return noEvents{}, nil // created by the branch's first append
	}
	return b, nil
}

// lastKey returns the greatest key of a bucket, nil when it is empty.
func lastKey(b kvBucket) ([]byte, error) {
	k, _, err := b.last()
	return k, err
}

// Head returns the last seq of a branch's history and that event's hash (the zero hash for an
// empty history), from the branch's head record (or, before its first append, the head its
// branch record holds). A head that disagrees with the last stored event is damage
// (ErrCorrupt): events, or the head record, were lost.
func (t *Tx) Head(id string) (uint64, Hash, error) {
	br, err := t.Branch(id)
	if err != nil {
		return 0, Hash{}, err
	}
	seq, h, _, err := t.head(br)
	return seq, h, err
}

// head is Head for a branch read already; recorded says whether its head record exists (else
// the head is the one its branch record holds).
func (t *Tx) head(br Branch) (seq uint64, h Hash, recorded bool, err error) {
	id := br.ID
	seq, h, recorded, err = t.recordedHead(br)
	if err != nil {
		return 0, Hash{}, false, err
	}
	if !recorded && t.tx.writable() {
		// The head came from the branch record, perhaps cached: on an engine with other
		// writers the commit requires it as created, as it requires the head record absent.
		t.tx.unchanged([]byte(id), pathBranches)
	}
	own, err := t.ownEvents(id)
	if err != nil {
		return 0, Hash{}, false, err
	}
	last := br.ForkSeq
	if k, err := lastKey(own); err != nil {
		return 0, Hash{}, false, fmt.Errorf("head of %s: %w", id, err)
	} else if k != nil {
		last = keySeq(k)
	}
	if last != seq {
		return 0, Hash{}, false, headMismatch(id, seq, last, recorded)
	}
	return seq, h, recorded, nil
}

// segment is a run of a branch's history stored in one branch's own bucket.
type segment struct {
	branch   string
	from, to uint64
}

// segments lists, oldest first, where each part of a branch's history 1..limit is stored.
func (t *Tx) segments(id string, limit uint64) ([]segment, error) {
	var rev []segment
	for id != "" {
		br, err := t.Branch(id)
		if err != nil {
			return nil, err
		}
		if limit > br.ForkSeq {
			rev = append(rev, segment{branch: id, from: br.ForkSeq + 1, to: limit})
			limit = br.ForkSeq
		}
		if limit == 0 {
			break
		}
		id = br.Parent
	}
	out := make([]segment, len(rev))
	for i := range rev {
		out[i] = rev[len(rev)-1-i]
	}
	return out, nil
}

// owner returns the branch whose own bucket stores seq of id's history.
func (t *Tx) owner(id string, seq uint64) (string, error) {
	for {
		br, err := t.Branch(id)
		if err != nil {
			return "", err
		}
		if seq > br.ForkSeq || br.Parent == "" {
			return id, nil
		}
		id = br.Parent
	}
}
