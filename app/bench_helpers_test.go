package app

import (
	"sort"
	"syscall"
	"time"
)

// nowNano returns a monotonic timestamp in nanoseconds.
func nowNano() int64 { return time.Since(start).Nanoseconds() }

var start = time.Now()

// percentiles returns the median and the 99th percentile of xs.
func percentiles(xs []float64) (float64, float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2], s[min(len(s)-1, len(s)*99/100)]
}

// cpuTime is the process's user and system CPU time so far (the collector's threads included).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
