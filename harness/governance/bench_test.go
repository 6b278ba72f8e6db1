package governance

import (
	"fmt"
	"testing"

	"exo/harness"
)

// BenchmarkTrackerAfterOneEvent measures bringing drift up to date after one new snapshot in a
// session with a long history: it should not depend on the history's length.
func BenchmarkTrackerAfterOneEvent(b *testing.B) {
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			h, err := harness.Open(b.TempDir(), harness.Options{NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			s, _ := h.NewSession(harness.NewSessionOptions{Name: "alpha", Workspace: "/w"})
			for i := 0; i < n; i++ {
				if _, err := h.Append(s.ID, snapshot(fmt.Sprintf("src/f%d.go", i%50))); err != nil {
					b.Fatal(err)
				}
			}
			tr := NewTracker(h)
			if _, err := tr.State(s.ID); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				h.Append(s.ID, snapshot("src/new.go"))
				b.StartTimer()
				st, err := tr.State(s.ID)
				if err != nil {
					b.Fatal(err)
				}
				_ = st.Drift()
			}
		})
	}
}
