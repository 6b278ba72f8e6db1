package daemon

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"exo/harness"
	"exo/harness/api"
)

// BenchmarkFanOut publishes one answer of 160k one-character deltas on a session that 1 or 4
// clients tail over the socket (as exo tail and the app do), and times it until every client
// has the whole text: the daemon's cost per attached client, without the model or exo run.
func BenchmarkFanOut(b *testing.B) {
	const deltas = 160_000
	for _, clients := range []int{1, 4} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			f := serve(b, 0)
			s, err := f.h.NewSession(harness.NewSessionOptions{Name: "fan"})
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			for i := 0; i < b.N; i++ {
				var wg sync.WaitGroup
				ws := make([]*api.Watcher, clients)
				for c := range ws {
					if ws[c], err = f.c.Watch(context.Background(), api.WatchRequest{Session: s.ID, Attach: s.ID}); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				for _, w := range ws {
					wg.Add(1)
					go func(w *api.Watcher) {
						defer wg.Done()
						got := 0
						for n := range w.C {
							got += strings.Count(n.Delta, "x")
							if got >= deltas {
								return
							}
						}
						b.Errorf("the stream ended after %d of %d deltas: %v", got, deltas, w.Err())
					}(w)
				}
				for d := 0; d < deltas; d++ {
					f.h.Publish(harness.Notice{Session: s.ID, Delta: "x"})
				}
				wg.Wait()
				b.StopTimer()
				for _, w := range ws {
					w.Close()
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/answer")
		})
	}
}
