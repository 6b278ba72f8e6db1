package app

import (
	"sort"
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
