package store

import (
	"math/bits"
	"math/rand"
	"slices"
	"testing"
)

// TestCheckpointLadder plays a million-event branch checkpointed every 400 to 700 events and
// pruned after each checkpoint, as the harness does: at every step the newest four are there,
// the branch keeps O(log n) checkpoints, and a state at any seq is at most about a quarter of
// its distance from the head (plus two intervals) past the checkpoint it replays from.
func TestCheckpointLadder(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	const minGap, maxGap = 400, 700
	var seqs, written []uint64
	for seq := uint64(0); seq < 1_000_000; {
		seq += minGap + uint64(rng.Intn(maxGap-minGap+1))
		written = append(written, seq)
		seqs = append(seqs, seq)
		drop := prunable(seqs)
		seqs = slices.DeleteFunc(seqs, func(s uint64) bool { return slices.Contains(drop, s) })
		newest, tail := seqs[len(seqs)-1], min(len(written), 4)
		if newest != seq || !slices.Equal(seqs[len(seqs)-tail:], written[len(written)-tail:]) {
			t.Fatalf("at %d the newest four are not all kept: %v", seq, seqs[max(len(seqs)-6, 0):])
		}
		if limit := 4 + 4*bits.Len64(seq/minGap); len(seqs) > limit {
			t.Fatalf("at %d: %d checkpoints kept, more than %d", seq, len(seqs), limit)
		}
		if seqs[0] != written[0] {
			t.Fatalf("at %d the oldest checkpoint went: %v", seq, seqs[:3])
		}
		for i := 1; i < len(seqs); i++ {
			gap, age := seqs[i]-seqs[i-1], newest-seqs[i]
			if gap > age*3/10+2*maxGap {
				t.Fatalf("at %d: %d events between checkpoints %d and %d (%d from the newest)", seq, gap, seqs[i-1], seqs[i], age)
			}
		}
	}
	if len(seqs) > 45 || len(written) < 1400 {
		t.Fatalf("%d checkpoints written, %d kept", len(written), len(seqs))
	}
}

// TestPrunableEdges: few checkpoints are all kept; equal slots drop the later one.
func TestPrunableEdges(t *testing.T) {
	for _, seqs := range [][]uint64{nil, {5}, {1, 2, 3, 4}} {
		if d := prunable(seqs); d != nil {
			t.Fatalf("prunable(%v) = %v", seqs, d)
		}
	}
	// Far from the newest (1024), 100..107 share a slot: only the first stays.
	got := prunable([]uint64{100, 101, 102, 103, 1000, 1010, 1020, 1024})
	if !slices.Equal(got, []uint64{101, 102, 103}) {
		t.Fatalf("dropped %v", got)
	}
}
