package daemon

import (
	"runtime/debug"
	"testing"
)

// The daemon sets the collector's goal to gcPercent only when its environment sets none: a
// user's GOGC (off included) stays in force. Not parallel: the goal is the process's.
func TestGCPolicyHonoursGOGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "GOGC" {
				return v
			}
			return ""
		}
	}
	if got := setGCPolicy(env("")); got != gcPercent || debug.SetGCPercent(100) != gcPercent {
		t.Fatalf("no GOGC: goal %d, want %d", got, gcPercent)
	}
	for _, c := range []struct {
		env  string
		goal int
	}{{"200", 200}, {"off", -1}, {"100", 100}} {
		debug.SetGCPercent(c.goal) // as the runtime read it from GOGC at start
		if got := setGCPolicy(env(c.env)); got != c.goal || debug.SetGCPercent(c.goal) != c.goal {
			t.Fatalf("GOGC=%s: goal %d, want %d", c.env, got, c.goal)
		}
	}
}
