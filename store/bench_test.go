package store

import (
	"fmt"
	"os"
	"syscall"
	"testing"
)

// BenchmarkAppend measures durable appends (fsync per commit) in 1- and 64-event transactions.
func BenchmarkAppend(b *testing.B) {
	for _, batch := range []int{1, 64} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			s := openTest(b, Options{})
			s.NewBranch("m")
			recs := make([]Record, batch)
			for i := range recs {
				recs[i] = rec(i)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.Append("m", recs...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// seeded returns a store with a root branch of n events.
func seeded(b *testing.B, n int) *Store {
	s := openTest(b, Options{NoSync: true})
	s.NewBranch("root")
	mustAppend(b, s, "root", n, 1000)
	return s
}

// processCPU returns the process's user and system CPU time in nanoseconds: on a machine shared
// with other work it is a steadier measure than the wall time per op.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkFork forks at the head of a 1k- and a 100k-event history: the cost must not grow.
func BenchmarkFork(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			s := seeded(b, n)
			b.ResetTimer()
			cpu := processCPU()
			for i := 0; i < b.N; i++ {
				if _, err := s.Fork(fmt.Sprintf("f%d", i), "root", uint64(n-i%n)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkReadTail reads the last 100 events of a branch forked 10 levels deep from a
// 100k-event root.
func BenchmarkReadTail(b *testing.B) {
	s := seeded(b, 100_000)
	parent := "root"
	for d := 1; d <= 10; d++ {
		id := fmt.Sprintf("d%d", d)
		head, _, _ := s.Head(parent)
		s.Fork(id, parent, head-uint64(d*10))
		mustAppend(b, s, id, 20, 20)
		parent = id
	}
	head, _, _ := s.Head(parent)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		evs, err := s.ReadRange(parent, head-99, head)
		if err != nil || len(evs) != 100 {
			b.Fatalf("%d %v", len(evs), err)
		}
	}
}

// BenchmarkVerify recomputes the hash chain of a 100k-event branch.
func BenchmarkVerify(b *testing.B) {
	s := seeded(b, 100_000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := s.VerifyBranch("root")
		if err != nil || !rep.OK() || rep.Events != 100_000 {
			b.Fatalf("%+v %v", rep, err)
		}
	}
	b.ReportMetric(float64(100_000*b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkOpenCheck measures the checks Open makes before mapping a database with 100k events:
// the meta pages, and the walk of every page (run at open up to DeepCheckLimit).
func BenchmarkOpenCheck(b *testing.B) {
	s := seeded(b, 100_000)
	path := s.Path()
	fi, _ := os.Stat(path)
	b.ReportMetric(float64(fi.Size())/(1<<20), "MiB")
	b.Run("metas", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := checkFile(path, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pages", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := checkFile(path, true); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(fi.Size())/(1<<20)/(b.Elapsed().Seconds()/float64(b.N)), "MiB/s")
	})
}
