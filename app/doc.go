// Package app is exo's full-screen terminal UI: the Bubble Tea root model that lays out the panes
// of views/, owns focus, routes keys and runs harness work in commands. It reaches state only
// through the harness API and never does I/O inside Update.
package app
