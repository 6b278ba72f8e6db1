//go:build !race

package views

// raceOn is true when the race detector runs (see race_on_test.go).
const raceOn = false
