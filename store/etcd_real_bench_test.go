package store

import (
	"testing"

	"exo/store/etcdtest"
)

// BenchmarkRealEtcdAppend measures serial single-event appends of one daemon to three etcd
// server processes on loopback (Debian's etcd-server; skipped without one), with the range
// requests the cluster served per append (etcd's own count).
func BenchmarkRealEtcdAppend(b *testing.B) {
	c := etcdtest.StartBinary(b, 3)
	s := openNode(b, c.Endpoints[:1], "bench-real", "n", 0)
	s.NewBranch("m")
	mustAppend(b, s, "m", 1, 1)
	r0, _ := c.Ranges()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Append("m", rec(i)); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	if r1, err := c.Ranges(); err == nil {
		b.ReportMetric(float64(r1-r0)/float64(b.N), "cluster-reads/append")
	}
}
