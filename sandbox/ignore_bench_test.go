package sandbox

import (
	"bytes"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
	"time"
)

// reportCPU reports the CPU time (user and system, of this process and of the children it
// waited for) per operation: on a loaded machine it varies far less than the wall time.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() { b.ReportMetric(float64(cpuTime()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op") }
}

// cpuTime is the CPU time this process and its waited-for children used so far.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		syscall.Getrusage(who, &ru)
		total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return total
}

// BenchmarkListFiles lists a 10,000-file git repository (with .gitignore files at the top and
// in every folder, and an ignored dependency folder of 2,000 files) the two ways exo could:
// WalkFiles, exo's own walk with go-git's ignore matcher, and git itself through exo's
// hardened git (`git ls-files --cached --others --exclude-standard`).
func BenchmarkListFiles(b *testing.B) {
	ws := benchWorkspace(b, 10_000)
	write(b, ws, ".gitignore", "*.log\n/build/\ndeps/\n!keep.log\n")
	for i := range 50 {
		write(b, ws, fmt.Sprintf("d%02d/.gitignore", i), "*.tmp\n!important.tmp\n")
	}
	for i := range 2000 {
		write(b, ws, fmt.Sprintf("deps/p%02d/f%04d.js", i%40, i), "x")
	}
	userGit(b, ws, "init", "-q")
	userGit(b, ws, "add", "-A")
	userGit(b, ws, "commit", "-qm", "init")
	b.Run("walk", func(b *testing.B) {
		d, err := OpenDir(ws)
		if err != nil {
			b.Fatal(err)
		}
		defer d.Close()
		defer reportCPU(b)()
		for b.Loop() {
			n := 0
			err := WalkFiles(d, ".", WalkOptions{}, func(_ string, e fs.DirEntry) error {
				if !e.IsDir() {
					n++
				}
				return nil
			})
			if err != nil || n != 10_051 {
				b.Fatalf("%d files, %v", n, err)
			}
		}
	})
	b.Run("git-ls-files", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			out, err := userRepo(ws).run(nil, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
			if n := bytes.Count(out, []byte{0}); err != nil || n != 10_051 {
				b.Fatalf("%d files, %v", n, err)
			}
		}
	})
}
