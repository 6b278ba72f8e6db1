package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"exo/store/etcdtest"
)

// BenchmarkEtcdAppend measures durable appends (etcd fsyncs on) to a three-member loopback
// cluster, in 1- and 64-event batches; BenchmarkAppend is the same on bbolt.
func BenchmarkEtcdAppend(b *testing.B) {
	c := etcdtest.Start(b, 3, etcdtest.Options{Fsync: true})
	for _, batch := range []int{1, 64} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			s := openNode(b, c.Endpoints, fmt.Sprint("bench-append-", batch), "n", 0)
			s.NewBranch("m")
			recs := make([]Record, batch)
			for i := range recs {
				recs[i] = rec(i)
			}
			r0, _ := c.Ranges()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.Append("m", recs...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "events/s")
			if r1, err := c.Ranges(); err == nil {
				b.ReportMetric(float64(r1-r0)/float64(b.N), "cluster-reads/append")
			}
		})
	}
}

// BenchmarkEtcdWatchLatency measures how long an append by one daemon takes to reach another
// daemon's watch on a three-member loopback cluster (the store half of the siblings pane).
func BenchmarkEtcdWatchLatency(b *testing.B) {
	c := etcdtest.Start(b, 3, etcdtest.Options{Fsync: true})
	a := openNode(b, c.Endpoints[:1], "bench-watch", "a", 0)
	w := openNode(b, c.Endpoints[1:], "bench-watch", "w", 0)
	a.NewBranch("m")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := w.Watch(ctx, 0)
	if err != nil {
		b.Fatal(err)
	}
	var worst time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		evs, err := a.Append("m", rec(i))
		if err != nil {
			b.Fatal(err)
		}
		for c := range ch {
			if c.Kind == ChangeHead && c.Branch == "m" && c.Seq == evs[0].Seq {
				break
			}
		}
		worst = max(worst, time.Since(start))
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
}
