package store

import (
	"fmt"
	"math/bits"

	"exo/store/failpoint"
)

// Checkpoint retention. A checkpoint is the whole projection as of its seq, so it grows with
// the session: kept all, a long session's checkpoints cost the square of its length (a
// 100k-event session's 195 checkpoints took 144 MiB of etcd's quota; pruned, 27 take 20 MiB).
// Opening a session needs only the newest; scrubbing its timeline (the state at an earlier
// seq) replays from the nearest one before that seq. So a branch keeps its newest few and a ladder of older ones
// that thins with age: an older checkpoint is kept when the one kept before it lies in another
// slot, the slots being aligned runs of seqs as wide as the greatest power of two no more than
// a quarter of the checkpoint's distance from the newest. Scrubbing then replays at most about
// a quarter of the way back from the head (plus one checkpoint interval), and a branch keeps
// O(log n) checkpoints.

const (
	// keepNewestCheckpoints is how many of a branch's newest checkpoints are kept whatever
	// their spacing (opening and recent scrubbing read these).
	keepNewestCheckpoints = 4
	// checkpointLadder divides a checkpoint's distance from the newest into its slot width.
	checkpointLadder = 4
)

// prunable returns which of a branch's checkpoints (seqs ascending) retention drops.
func prunable(seqs []uint64) []uint64 {
	n := len(seqs)
	if n <= keepNewestCheckpoints {
		return nil
	}
	newest, kept := seqs[n-1], seqs[0]
	var drop []uint64
	for _, seq := range seqs[1 : n-keepNewestCheckpoints] {
		w := slotWidth(newest - seq)
		if kept/w == seq/w {
			drop = append(drop, seq)
			continue
		}
		kept = seq
	}
	return drop
}

// slotWidth is the ladder's slot width for a checkpoint age events older than the newest.
func slotWidth(age uint64) uint64 {
	x := age / checkpointLadder
	if x == 0 {
		return 1
	}
	return 1 << (63 - bits.LeadingZeros64(x))
}

// PruneCheckpoints drops the checkpoints of a projection's branch that retention does not
// keep, never the newest nor the one the branch's pointer names. A checkpoint stored in parts
// goes with its parts in one commit; when they do not fit one, its manifest goes first and
// the parts after it, so no manifest ever outlives its parts. Parts left without a manifest
// by a daemon that stopped part-way are swept too (checkpoint_orphans.go). It returns how many
// checkpoints it dropped; on error those dropped so far stay dropped and the rest stay whole.
func (s *Store) PruneCheckpoints(projection, branch string) (int, error) {
	seqs, err := s.checkpointSeqs(projection, branch)
	if err != nil {
		return 0, err
	}
	drop := prunable(seqs)
	dropped := 0
	for len(drop) > 0 {
		var cut pruneCut
		err := s.Update(func(tx *Tx) error {
			var err error
			cut, err = tx.dropCheckpoints(projection, branch, drop, s.deleteBudget())
			return err
		})
		if err != nil {
			return dropped, fmt.Errorf("prune checkpoints %s of %s: %w", projection, branch, err)
		}
		dropped += cut.removed
		failpoint.Hit("prune.commit") // "prune.commit#N" kills exo after the Nth commit of a prune
		if cut.parts != nil {
			if err := s.dropParts(cut.parts); err != nil {
				return dropped, fmt.Errorf("prune checkpoints %s of %s: parts of a dropped checkpoint: %w", projection, branch, err)
			}
		}
		drop = drop[cut.consumed:]
	}
	failpoint.Hit("prune.before-sweep")
	if _, err := s.sweepOrphanParts(projection, branch); err != nil {
		return dropped, fmt.Errorf("prune checkpoints %s of %s: %w", projection, branch, err)
	}
	return dropped, nil
}

// PrunableCheckpoints counts the checkpoints of a projection's branch that PruneCheckpoints
// would drop now (what `exo gc --dry-run` reports).
func (s *Store) PrunableCheckpoints(projection, branch string) (int, error) {
	seqs, err := s.checkpointSeqs(projection, branch)
	if err != nil {
		return 0, err
	}
	return len(prunable(seqs)), nil
}

// checkpointSeqs lists the seqs of a branch's checkpoints, ascending, without reading them.
func (s *Store) checkpointSeqs(projection, branch string) ([]uint64, error) {
	var seqs []uint64
	err := s.View(func(tx *Tx) error {
		b, found, err := tx.tx.bucket(pathProjections, projection, branch)
		if err != nil || !found {
			return err
		}
		return b.keys(nil, func(k []byte) (bool, error) {
			if len(k) == 8 {
				seqs = append(seqs, keySeq(k))
			}
			return true, nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list checkpoints %s of %s: %w", projection, branch, err)
	}
	return seqs, nil
}

// deleteBudget is how many keys one commit may delete (unbounded on bbolt).
func (s *Store) deleteBudget() int {
	if l, ok := s.kv.(interface{ limits() (int, int) }); ok {
		ops, _ := l.limits()
		return max(ops, 2)
	}
	return 1 << 20
}

// pruneCut is what one commit of a prune did.
type pruneCut struct {
	// consumed is how many of the seqs asked for were dealt with (dropped or kept as the
	// pointer's); removed how many were dropped.
	consumed, removed int
	// parts is the parts bucket of a checkpoint whose manifest went alone (they did not fit
	// with it): the caller removes them next.
	parts []string
}

// dropCheckpoints deletes, in this transaction, the checkpoints at seqs (ascending) that fit
// within budget deletions, each with its parts, skipping the one the pointer names.
func (t *Tx) dropCheckpoints(projection, branch string, seqs []uint64, budget int) (pruneCut, error) {
	var cut pruneCut
	b, found, err := t.tx.bucket(pathProjections, projection, branch)
	if err != nil || !found {
		return pruneCut{consumed: len(seqs)}, err
	}
	pointer, err := t.checkpointPointer(projection, branch)
	if err != nil {
		return cut, err
	}
	used := 0
	for _, seq := range seqs {
		if seq == pointer {
			cut.consumed++
			continue
		}
		parts, err := t.chunkKeys(chunkPath(projection, branch, seq))
		if err != nil {
			return cut, err
		}
		alone := used == 0 && 1+len(parts) > budget
		if !alone && used+1+len(parts) > budget {
			return cut, nil // the next commit takes it
		}
		if err := b.del(seqKey(seq)); err != nil {
			return cut, fmt.Errorf("drop checkpoint %s %s@%d: %w", projection, branch, seq, err)
		}
		cut.consumed++
		cut.removed++
		if alone {
			cut.parts = chunkPath(projection, branch, seq)
			return cut, nil
		}
		if err := t.deleteKeys(chunkPath(projection, branch, seq), parts); err != nil {
			return cut, err
		}
		used += 1 + len(parts)
	}
	return cut, nil
}

// checkpointPointer returns the seq the branch's newest-checkpoint pointer names (0 when
// there is none: then no checkpoint is named, seq 0 is never one worth keeping for it). The
// read makes the commit fail, and run again, if the pointer moves meanwhile.
func (t *Tx) checkpointPointer(projection, branch string) (uint64, error) {
	if t.s.chunkSize() == 0 {
		return 0, nil
	}
	hb, found, err := t.tx.bucket(pathCheckpointHeads, projection)
	if err != nil || !found {
		return 0, err
	}
	p, err := hb.get([]byte(branch))
	if err != nil || len(p) != 8 {
		return 0, err
	}
	return keySeq(p), nil
}

// chunkKeys lists the keys of the parts stored under path (none on an engine that does not
// chunk).
func (t *Tx) chunkKeys(path []string) ([][]byte, error) {
	if t.s.chunkSize() == 0 {
		return nil, nil
	}
	b, found, err := t.tx.bucket(path...)
	if err != nil || !found {
		return nil, err
	}
	var keys [][]byte
	err = b.keys(nil, func(k []byte) (bool, error) {
		keys = append(keys, append([]byte(nil), k...))
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("parts under %v: %w", path, err)
	}
	return keys, nil
}

// deleteKeys deletes keys from the bucket at path.
func (t *Tx) deleteKeys(path []string, keys [][]byte) error {
	if len(keys) == 0 {
		return nil
	}
	b, found, err := t.tx.bucket(path...)
	if err != nil || !found {
		return err
	}
	for _, k := range keys {
		if err := b.del(k); err != nil {
			return fmt.Errorf("delete %v/%s: %w", path, k, err)
		}
	}
	return nil
}

// dropParts removes every part under path, as many per commit as one may delete.
func (s *Store) dropParts(path []string) error {
	budget := s.deleteBudget()
	for {
		n := 0
		err := s.Update(func(tx *Tx) error {
			b, found, err := tx.tx.bucket(path...)
			if err != nil || !found {
				n = 0
				return err
			}
			var keys [][]byte
			err = b.keys(nil, func(k []byte) (bool, error) {
				keys = append(keys, append([]byte(nil), k...))
				return len(keys) < budget, nil
			})
			if err != nil {
				return err
			}
			n = len(keys)
			return tx.deleteKeys(path, keys)
		})
		if err != nil || n == 0 {
			return err
		}
	}
}
