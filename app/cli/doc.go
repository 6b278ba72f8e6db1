// Package cli is exo's command line: one file per command group, all reaching state through the
// harness API. main.go only calls Execute.
package cli
