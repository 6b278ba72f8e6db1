package daemon

import (
	"os"
	"runtime/debug"
)

// gcPercent is the collector's goal the daemon sets itself, as GOGC=50 would: the heap may
// grow to 1.5 times what is live after a collection, not twice. A long-lived daemon's live heap
// holds its bounded caches (finished turns, prompt views, Session projections: about 2 MiB once
// a few long answers filled them) beside a fixed 6 MiB, and with GOGC's default of 100 its peak
// during a 160k-delta answer reached 52-53 MiB over 20 sessions. See README, "On a quiet
// machine, 29 Nov", for what it costs `exo log --json` of a 20k-turn session.
const gcPercent = 50

// setGCPolicy sets the collector's goal to gcPercent unless the user chose one (GOGC in the
// daemon's environment, "off" included); it returns the goal in force.
func setGCPolicy(getenv func(string) string) int {
	if getenv("GOGC") != "" {
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		return p
	}
	debug.SetGCPercent(gcPercent)
	return gcPercent
}

// applyGCPolicy is setGCPolicy with the process's environment.
func applyGCPolicy() int { return setGCPolicy(os.Getenv) }
