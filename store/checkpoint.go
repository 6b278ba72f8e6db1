package store

import (
	"fmt"
)

// PutCheckpoint stores an opaque projection snapshot of branch's history as of seq.
func (t *Tx) PutCheckpoint(projection, branch string, seq uint64, blob []byte) error {
	bb, err := t.tx.createBucket(pathProjections, projection, branch)
	if err != nil {
		return fmt.Errorf("checkpoint bucket %s/%s: %w", projection, branch, err)
	}
	if err := bb.put(seqKey(seq), blob); err != nil {
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
	for i := len(segs) - 1; i >= 0; i-- {
		b, found, err := t.tx.bucket(pathProjections, projection, segs[i].branch)
		if err != nil {
			return 0, nil, false, fmt.Errorf("checkpoint %s of %s: %w", projection, branch, err)
		}
		if !found {
			continue
		}
		k, v, err := b.atOrBefore(seqKey(segs[i].to))
		if err != nil {
			return 0, nil, false, fmt.Errorf("checkpoint %s of %s: %w", projection, branch, err)
		}
		if k != nil {
			return keySeq(k), append([]byte(nil), v...), true, nil
		}
	}
	return 0, nil, false, nil
}
