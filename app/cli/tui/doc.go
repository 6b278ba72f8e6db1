// Package tui owns the link between exo's command line (app/cli) and its full-screen app
// (exo/app): exo-full's main gives it to the command line, so the command line itself links no
// terminal UI library and a binary built without the app (the daemon's) stays small.
package tui
