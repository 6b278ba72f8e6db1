// Package governance keeps several agent sessions honest on one project: scopes (allow and deny
// globs, a file budget, boundary paths), live drift scores, enforcement of shell changes, sibling
// conflicts and awareness, the project constitution and its lock, and the finish and handoff
// lifecycle.
//
// Everything here is a projection of the event log or a function that returns records for the
// harness to append: governance keeps no hidden state. A fork inherits its parent's scope and
// changes through its history; recomputing drift from the log at any time gives the live value.
package governance
