package store

import (
	"fmt"
	"strconv"
	"strings"
)

// Parts without a manifest. A daemon that stops while writing a checkpoint's parts (before its
// manifest), or while pruning one too big to go with its parts in one commit (after the
// manifest), leaves parts nobody reads. They are swept with the branch's next prune once they
// are older than its newest few checkpoints: a write still running is never that old (the owner
// writes a branch's checkpoints one after another, at its head).

// sweepOrphanParts removes the parts of a branch's checkpoints that have no manifest and are
// older than the oldest of its newest keepNewestCheckpoints, returning how many checkpoints'
// parts it removed.
func (s *Store) sweepOrphanParts(projection, branch string) (int, error) {
	if s.chunkSize() == 0 {
		return 0, nil
	}
	seqs, err := s.checkpointSeqs(projection, branch)
	if err != nil || len(seqs) < keepNewestCheckpoints {
		return 0, err
	}
	floor := seqs[len(seqs)-keepNewestCheckpoints]
	kept := make(map[uint64]bool, len(seqs))
	for _, seq := range seqs {
		kept[seq] = true
	}
	var orphans []uint64
	err = s.View(func(tx *Tx) error {
		b, found, err := tx.tx.bucket(pathCheckpointChunks, projection, branch)
		if err != nil || !found {
			return err
		}
		last := uint64(0)
		return b.keys(nil, func(k []byte) (bool, error) {
			dir, _, ok := strings.Cut(string(k), "/")
			seq, err := strconv.ParseUint(dir, 10, 64)
			if !ok || err != nil || len(dir) != 20 {
				return true, nil // not a part's key: leave it
			}
			if seq >= floor {
				return false, nil // keys ascend: the rest are newer
			}
			if !kept[seq] && seq != last {
				orphans = append(orphans, seq)
				last = seq
			}
			return true, nil
		})
	})
	if err != nil {
		return 0, fmt.Errorf("list parts of %s of %s: %w", projection, branch, err)
	}
	for i, seq := range orphans {
		if err := s.dropParts(chunkPath(projection, branch, seq)); err != nil {
			return i, fmt.Errorf("remove parts without a manifest %s %s@%d: %w", projection, branch, seq, err)
		}
	}
	return len(orphans), nil
}
