package store

import (
	"fmt"
)

// Checkpoints are opaque projection snapshots under projections/<name>/<branch>/<seq>. On
// bbolt the snapshot is the value itself. On an engine that bounds a commit (etcd) it is
// stored in chunks that each fit one request, written before a small manifest that takes its
// place (checkpoint_chunks.go); a pointer per branch names the newest checkpoint, so opening a
// session reads two small keys and its chunks instead of ranging over every snapshot.

// pathCheckpointHeads is the bucket of the newest-checkpoint pointers (engines that chunk).
const pathCheckpointHeads = "checkpoint-heads"

// PutCheckpoint stores an opaque projection snapshot of branch's history as of seq, in this
// transaction: on an engine that bounds a commit it must fit one (Store.PutCheckpoint chunks
// a big one).
func (t *Tx) PutCheckpoint(projection, branch string, seq uint64, blob []byte) error {
	bb, err := t.tx.createBucket(pathProjections, projection, branch)
	if err != nil {
		return fmt.Errorf("checkpoint bucket %s/%s: %w", projection, branch, err)
	}
	if err := bb.put(seqKey(seq), blob); err != nil {
		return fmt.Errorf("store checkpoint %s %s@%d: %w", projection, branch, seq, err)
	}
	if t.s.chunkSize() == 0 {
		return nil
	}
	return t.pointCheckpoint(projection, branch, seq)
}

// pointCheckpoint moves the newest-checkpoint pointer of branch to seq unless it names a
// newer one.
func (t *Tx) pointCheckpoint(projection, branch string, seq uint64) error {
	hb, err := t.tx.createBucket(pathCheckpointHeads, projection)
	if err != nil {
		return fmt.Errorf("checkpoint pointer of %s/%s: %w", projection, branch, err)
	}
	cur, err := hb.get([]byte(branch))
	if err != nil {
		return fmt.Errorf("checkpoint pointer of %s/%s: %w", projection, branch, err)
	}
	if keySeq(cur) >= seq {
		return nil
	}
	if err := hb.put([]byte(branch), seqKey(seq)); err != nil {
		return fmt.Errorf("checkpoint pointer of %s/%s: %w", projection, branch, err)
	}
	return nil
}

// PutCheckpoint stores a projection snapshot. On an engine that bounds a commit a snapshot
// too big for one is written in chunks, each in its own commit, then made visible by its
// manifest; an error (nothing visible then) is returned, never swallowed.
func (s *Store) PutCheckpoint(projection, branch string, seq uint64, blob []byte) error {
	if size := s.chunkSize(); size > 0 {
		return s.putChunked(projection, branch, seq, blob, size)
	}
	return s.Update(func(tx *Tx) error { return tx.PutCheckpoint(projection, branch, seq, blob) })
}

// LatestCheckpoint finds the newest snapshot of a projection usable for branch's history up to
// atOrBefore (0 means the head): one stored on the branch itself or on an ancestor at or before
// the fork point. ok is false when there is none. A chunked snapshot whose chunks do not add up
// is skipped (it only costs replay).
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
		seq, blob, ok, err := t.checkpointIn(projection, segs[i].branch, segs[i].to)
		if err != nil {
			return 0, nil, false, fmt.Errorf("checkpoint %s of %s: %w", projection, branch, err)
		}
		if ok {
			return seq, blob, true, nil
		}
	}
	return 0, nil, false, nil
}

// checkpointIn finds the newest usable snapshot stored on branch at or before seq to: the
// pointer's when it qualifies, else the greatest key at or before to; a chunked one that does
// not add up gives way to the one before it.
func (t *Tx) checkpointIn(projection, branch string, to uint64) (uint64, []byte, bool, error) {
	b, found, err := t.tx.bucket(pathProjections, projection, branch)
	if err != nil || !found {
		return 0, nil, false, err
	}
	k, v, err := t.pointed(b, projection, branch, to)
	for err == nil {
		if k == nil {
			if k, v, err = b.atOrBefore(seqKey(to)); err != nil || k == nil {
				break
			}
		}
		seq := keySeq(k)
		blob, ok, err := t.unchunk(projection, branch, seq, v)
		if err != nil || ok {
			return seq, blob, ok, err
		}
		if seq == 0 {
			break
		}
		k, to = nil, seq-1
	}
	return 0, nil, false, err
}

// pointed returns the checkpoint the branch's pointer names when it is at or before to
// (nil when there is no pointer, or it names a later one).
func (t *Tx) pointed(b kvBucket, projection, branch string, to uint64) ([]byte, []byte, error) {
	if t.s.chunkSize() == 0 {
		return nil, nil, nil
	}
	hb, found, err := t.tx.bucket(pathCheckpointHeads, projection)
	if err != nil || !found {
		return nil, nil, err
	}
	p, err := hb.get([]byte(branch))
	if err != nil || len(p) != 8 || keySeq(p) > to {
		return nil, nil, err
	}
	v, err := b.get(p)
	if err != nil || v == nil {
		return nil, nil, err
	}
	return append([]byte(nil), p...), v, nil
}
