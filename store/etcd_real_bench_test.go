package store

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"exo/store/etcdtest"
)

// BenchmarkRealEtcdAppend measures single-event appends of one daemon to three etcd server
// processes on loopback (Debian's etcd-server; skipped without one): from one session
// (serial), and from 4 and 16 sessions appending at once, with group commit (grouped) and
// with each append its own transaction (separate, as before group commit; one session has
// nothing to group with, so there it measures what queueing costs). It reports the
// events per second, the events each commit carried and the range requests the cluster served
// per append (etcd's own count).
func BenchmarkRealEtcdAppend(b *testing.B) {
	c := sharedReal(b)
	var runs atomic.Int64 // a benchmark function runs more than once: each in its own namespace
	for _, sessions := range []int{1, 4, 16} {
		for _, mode := range []string{"grouped", "separate"} {
			b.Run(fmt.Sprintf("sessions=%d/%s", sessions, mode), func(b *testing.B) {
				s := openNode(b, c.Endpoints[:1], fmt.Sprintf("bench-real-%d-%s-%d", sessions, mode, runs.Add(1)), "n", 0)
				s.noGroup = mode == "separate"
				for i := range sessions {
					if _, err := s.NewBranch(fmt.Sprint("m", i)); err != nil {
						b.Fatal(err)
					}
					mustAppend(b, s, fmt.Sprint("m", i), 1, 1)
				}
				c0, m0 := s.GroupStats()
				r0, _ := c.Ranges()
				var next atomic.Int64
				var wg sync.WaitGroup
				b.ResetTimer()
				for i := range sessions {
					wg.Go(func() {
						for n := next.Add(1); n <= int64(b.N); n = next.Add(1) {
							if _, err := s.Append(fmt.Sprint("m", i), rec(int(n))); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				b.StopTimer()
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
				if c1, m1 := s.GroupStats(); c1 > c0 {
					b.ReportMetric(float64(m1-m0)/float64(c1-c0), "events/commit")
				}
				if r1, err := c.Ranges(); err == nil {
					b.ReportMetric(float64(r1-r0)/float64(b.N), "cluster-reads/append")
				}
			})
		}
	}
}

// BenchmarkRealEtcdTakeover measures how long after a daemon is cut off (the etcd process it
// talks to is stopped with SIGSTOP; the two others keep quorum) another daemon claims its
// branch, with leases of 3 s and 30 s: the lease's TTL, plus an election when the stopped
// member led. Run it with -benchtime 1x (a 30 s lease takes 30 s and more).
func BenchmarkRealEtcdTakeover(b *testing.B) {
	for _, ttl := range []time.Duration{3 * time.Second, 30 * time.Second} {
		b.Run("lease="+ttl.String(), func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				c := etcdtest.StartBinary(b, 3)
				a := openNode(b, c.Endpoints[:1], "takeover", "a", ttl)
				o := openNode(b, c.Endpoints[1:], "takeover", "b", 0)
				if _, err := a.NewBranch("m"); err != nil {
					b.Fatal(err)
				}
				mustAppend(b, a, "m", 1, 1)
				c.Pause(0)
				start := time.Now()
				for {
					err := o.Claim("m")
					if err == nil {
						break
					}
					if !errors.Is(err, ErrNotOwner) || time.Since(start) > 2*ttl+time.Minute {
						b.Fatalf("claim: %v", err)
					}
					time.Sleep(50 * time.Millisecond)
				}
				total += time.Since(start)
				c.Resume(0)
			}
			b.ReportMetric(total.Seconds()/float64(b.N), "takeover-s")
		})
	}
}
