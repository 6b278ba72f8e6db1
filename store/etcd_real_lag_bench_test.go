package store

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// lagRuns numbers the runs of BenchmarkRealEtcdFollowerLag.
var lagRuns int

// BenchmarkRealEtcdFollowerLag measures how long after daemon A's append is acknowledged
// daemon B's watch delivers it, on three etcd server processes on loopback, while A appends
// 500 events a second (eight sessions, each paced at 62.5 a second; b.N events in all). It
// reports the lag's p50, p99 and maximum in milliseconds (0 when B saw the event before A's
// call returned), the p99 from the moment A called Append (the commit included) and the rate
// A held. Run it with a fixed count, e.g. -benchtime 2500x (5 s).
func BenchmarkRealEtcdFollowerLag(b *testing.B) {
	c := sharedReal(b)
	lagRuns++ // a benchmark function runs more than once: each in its own namespace
	{
		name := fmt.Sprint("bench-lag-", lagRuns)
		a := openNode(b, c.Endpoints[:1], name, "a", 0)
		f := openNode(b, c.Endpoints[1:2], name, "b", 0)
		const sessions, rate = 8, 500
		for i := range sessions {
			if _, err := a.NewBranch(fmt.Sprint("m", i)); err != nil {
				b.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ch, err := f.Watch(ctx, 0)
		if err != nil {
			b.Fatal(err)
		}
		type at struct {
			branch string
			seq    uint64
		}
		var mu sync.Mutex
		seen, called, acked := map[at]time.Time{}, map[at]time.Time{}, map[at]time.Time{}
		var all sync.WaitGroup
		all.Add(b.N)
		go func() {
			high := map[string]uint64{}
			for c := range ch {
				if c.Kind != ChangeHead {
					continue
				}
				now := time.Now()
				mu.Lock()
				for s := high[c.Branch] + 1; s <= c.Seq; s++ {
					seen[at{c.Branch, s}] = now
					all.Done()
				}
				high[c.Branch] = max(high[c.Branch], c.Seq)
				mu.Unlock()
			}
		}()
		var next atomic.Int64
		var wg sync.WaitGroup
		b.ResetTimer()
		for i := range sessions {
			wg.Go(func() {
				tick := time.NewTicker(time.Second * sessions / rate)
				defer tick.Stop()
				branch := fmt.Sprint("m", i)
				for n := next.Add(1); n <= int64(b.N); n = next.Add(1) {
					<-tick.C
					start := time.Now()
					evs, err := a.Append(branch, rec(int(n)))
					if err != nil {
						b.Error(err)
						return
					}
					mu.Lock()
					acked[at{branch, evs[0].Seq}] = time.Now()
					called[at{branch, evs[0].Seq}] = start
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		held := float64(b.N) / b.Elapsed().Seconds()
		done := make(chan struct{})
		go func() { all.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			b.Fatalf("B saw %d of %d events after 30 s", len(seen), b.N)
		}
		b.StopTimer()
		mu.Lock()
		lags := make([]time.Duration, 0, len(acked))
		whole := make([]time.Duration, 0, len(acked))
		for k, t := range acked {
			lags = append(lags, max(seen[k].Sub(t), 0))
			whole = append(whole, seen[k].Sub(called[k]))
		}
		mu.Unlock()
		slices.Sort(lags)
		slices.Sort(whole)
		ms := func(d []time.Duration, q float64) float64 {
			return float64(d[min(len(d)-1, int(q*float64(len(d))))].Microseconds()) / 1000
		}
		b.ReportMetric(ms(lags, 0.5), "p50-ms")
		b.ReportMetric(ms(lags, 0.99), "p99-ms")
		b.ReportMetric(ms(lags, 1), "max-ms")
		b.ReportMetric(ms(whole, 0.99), "p99-from-call-ms")
		b.ReportMetric(held, "events/s")
	}
}
