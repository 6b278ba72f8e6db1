package store

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// PutCheckpoint stores an opaque projection snapshot of branch's history as of seq.
func (t *Tx) PutCheckpoint(projection, branch string, seq uint64, blob []byte) error {
	pb, err := t.tx.Bucket(projectionsBucket).CreateBucketIfNotExists([]byte(projection))
	if err != nil {
		return fmt.Errorf("checkpoint bucket %s: %w", projection, err)
	}
	bb, err := pb.CreateBucketIfNotExists([]byte(branch))
	if err != nil {
		return fmt.Errorf("checkpoint bucket %s/%s: %w", projection, branch, err)
	}
	if err := bb.Put(seqKey(seq), blob); err != nil {
		return fmt.Errorf("store checkpoint %s %s@%d: %w", projection, branch, seq, err)
	}
	return nil
}

// PutCheckpoint stores a projection snapshot in its own transaction.
func (s *Store) PutCheckpoint(projection, branch string, seq uint64, blob []byte) error {
	return s.Update(func(tx *Tx) error { return tx.PutCheckpoint(projection, branch, seq, blob) })
}

// LatestCheckpoint finds the newest snapshot of a projection usable for branch's history up to
// atOrBefore (0 means the head): one stored on the branch itself or on an ancestor at or before
// the fork point. ok is false when there is none.
func (t *Tx) LatestCheckpoint(projection, branch string, atOrBefore uint64) (seq uint64, blob []byte, ok bool, err error) {
	if atOrBefore == 0 {
		if atOrBefore, _, err = t.Head(branch); err != nil {
			return 0, nil, false, err
		}
	}
	segs, err := t.segments(branch, atOrBefore)
	if err != nil {
		return 0, nil, false, err
	}
	pb := t.tx.Bucket(projectionsBucket).Bucket([]byte(projection))
	if pb == nil {
		return 0, nil, false, nil
	}
	for i := len(segs) - 1; i >= 0; i-- {
		if seq, blob, ok = lastAtOrBefore(pb.Bucket([]byte(segs[i].branch)), segs[i].to); ok {
			return seq, blob, true, nil
		}
	}
	return 0, nil, false, nil
}

// lastAtOrBefore returns the greatest checkpoint at or before seq in a bucket, copied out.
func lastAtOrBefore(b *bolt.Bucket, seq uint64) (uint64, []byte, bool) {
	if b == nil {
		return 0, nil, false
	}
	c := b.Cursor()
	k, v := c.Seek(seqKey(seq))
	if k == nil || keySeq(k) > seq {
		k, v = c.Prev()
	}
	if k == nil {
		return 0, nil, false
	}
	return keySeq(k), append([]byte(nil), v...), true
}
