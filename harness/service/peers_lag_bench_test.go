package service

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/store/etcdtest"
)

// BenchmarkRealEtcdAppLag measures, on three etcd server processes, how long after daemon
// alpha's append is acknowledged an app of daemon beta (a watch of every session on beta's
// service, what the app reads) receives it, while alpha's eight sessions append 500 events a
// second in all (b.N events). It reports p50, p99 and the maximum in milliseconds (0 when the
// app had the event before alpha's call returned), and the rate alpha held. Run it with a
// fixed count, e.g. -benchtime 3000x.
func BenchmarkRealEtcdAppLag(b *testing.B) {
	c := etcdtest.StartBinary(b, 3)
	ha, sa := daemonOn(b, c.Endpoints[:1], "alpha")
	_, sb := daemonOn(b, c.Endpoints[1:2], "beta")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const sessions, rate = 8, 500
	ids := make([]string, sessions)
	for i := range ids {
		se, err := sa.NewSession(ctx, api.NewSessionRequest{Name: fmt.Sprint("lag", i), Workspace: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = se.ID
	}
	w, err := sb.Watch(ctx, api.WatchRequest{Client: "app"})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	type at struct {
		session string
		seq     uint64
	}
	var mu sync.Mutex
	seen, acked := map[at]time.Time{}, map[at]time.Time{}
	var all sync.WaitGroup
	all.Add(b.N)
	go func() {
		for n := range w.C {
			now := time.Now()
			mu.Lock()
			for _, e := range n.Events {
				if _, ok := seen[at{n.Session, e.Seq}]; !ok && e.Type == harness.TypeInvocationReceived {
					seen[at{n.Session, e.Seq}] = now
					all.Done()
				}
			}
			mu.Unlock()
		}
	}()
	rec := harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: "lag"})
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for i := range sessions {
		wg.Go(func() {
			tick := time.NewTicker(time.Second * sessions / rate)
			defer tick.Stop()
			for n := next.Add(1); n <= int64(b.N); n = next.Add(1) {
				<-tick.C
				evs, err := ha.Append(ids[i], rec)
				if err != nil {
					b.Error(err)
					return
				}
				mu.Lock()
				acked[at{ids[i], evs[0].Seq}] = time.Now()
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
		mu.Lock()
		defer mu.Unlock()
		b.Fatalf("beta's app saw %d of %d events after 30 s", len(seen), b.N)
	}
	b.StopTimer()
	mu.Lock()
	lags := make([]time.Duration, 0, len(acked))
	for k, t := range acked {
		lags = append(lags, max(seen[k].Sub(t), 0))
	}
	mu.Unlock()
	slices.Sort(lags)
	ms := func(q float64) float64 {
		return float64(lags[min(len(lags)-1, int(q*float64(len(lags))))].Microseconds()) / 1000
	}
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
	b.ReportMetric(ms(1), "max-ms")
	b.ReportMetric(held, "events/s")
}
