// Package plaintext owns the plain-text helpers the command line shares with the views: counts with
// their nouns and JSON for a person to read. It links only the standard library, so a binary
// without the terminal UI (the daemon's, app/daemon) prints what the full exo prints.
package plaintext
