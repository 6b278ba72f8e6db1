//go:build race

package views

// raceOn is true when the race detector runs, which makes rendering ten times slower: the
// randomized rendering tests then try fewer answers.
const raceOn = true
