package harness

import (
	"testing"
)

// BenchmarkOpenSession opens the Session projection of a 100k-event session from the newest
// checkpoint plus its tail, and by full replay, on a cold harness cache.
func BenchmarkOpenSession(b *testing.B) {
	h := openTest(b, Options{NoSync: true})
	s, _ := h.NewSession(NewSessionOptions{Name: "big"})
	h.State(s.ID)
	for i := 0; h.mustHead(b, s.Branch) < 100_000; i++ {
		var recs = turn(i)
		for j := 0; j < 20; j++ {
			recs = append(recs, turn(i*20+j)...)
		}
		if _, err := h.Append(s.ID, recs...); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("checkpoint+tail", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			st, n, err := h.LoadState(s.Branch, 0, true)
			if err != nil || st.Head < 100_000 || n > DefaultCheckpointEvery+200 {
				b.Fatalf("%v %d", err, n)
			}
		}
	})
	b.Run("full-replay", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			st, _, err := h.LoadState(s.Branch, 0, false)
			if err != nil || st.Head < 100_000 {
				b.Fatal(err)
			}
		}
	})
}

func (h *Harness) mustHead(b *testing.B, branch string) uint64 {
	head, _, err := h.st.Head(branch)
	if err != nil {
		b.Fatal(err)
	}
	return head
}
