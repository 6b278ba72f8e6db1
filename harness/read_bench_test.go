package harness

import (
	"fmt"
	"testing"
)

// BenchmarkReadLongSession reads a 5k-turn session's 20,000 events as `exo log` does, a page of
// 2048 at a time, each turn the four events a real text turn writes (the shapes of the 20k-turn
// session the side-by-side run measures): the store's read, decompression and the API's copy;
// events: through BranchEvents (each event's payload its own), pages: BranchEventPages (reused
// memory).
func BenchmarkReadLongSession(b *testing.B) {
	h := openTest(b, Options{NoSync: true})
	s, err := h.NewSession(NewSessionOptions{Name: "long"})
	if err != nil {
		b.Fatal(err)
	}
	ex := ExecutorActor("default")
	const turns = 5000
	for i := 1; i <= turns; i++ {
		a := fmt.Sprintf("Step %d compiles the **%d-th** package. It reads:\n\n- `pkg/p%d/main.go`\n- `pkg/p%d/util.go`\n\nThen it runs `go vet` on it and records the result in `build/%d.log`.", i, i, i, i, i)
		if _, err := h.Append(s.ID,
			MustRecord(TypeInvocationReceived, ActorUser, InvocationReceived{Text: fmt.Sprintf("Question %d: what does step %d of the build do, and which file holds it?", i, i), Source: "run"}),
			MustRecord(TypeStepStarted, ex, StepStarted{Step: 1}),
			MustRecord(TypeModelRequested, ex, ModelRequested{Model: "m", Provider: "openai-compatible", Step: 1, PromptTokens: 300 + i*80, Messages: 1 + 2*i}),
			MustRecord(TypeModelCompleted, ex, ModelCompleted{Model: "m", Text: a, Usage: Usage{Input: 550 + i*80, Output: len(a) / 4}, TTFTMs: 2, DurationMs: 3, StopReason: "end_turn"}),
		); err != nil {
			b.Fatal(err)
		}
	}
	head := h.mustHead(b, s.Branch)
	perEvent := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(head), "ns/event")
	}
	b.Run("events", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			for at := uint64(1); at <= head; at += 2048 {
				evs, err := h.BranchEvents(s.Branch, at, min(head, at+2047))
				if err != nil {
					b.Fatal(err)
				}
				n += len(evs)
			}
			if n != int(head) {
				b.Fatalf("read %d events of %d", n, head)
			}
		}
		perEvent(b)
	})
	b.Run("pages", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			if err := h.BranchEventPages(s.Branch, 1, 0, func(evs []Event) error {
				n += len(evs)
				return nil
			}); err != nil {
				b.Fatal(err)
			}
			if n != int(head) {
				b.Fatalf("read %d events of %d", n, head)
			}
		}
		perEvent(b)
	})
}
