// Package client is the harness API (harness/api) over the exo daemon's unix socket: it finds
// the daemon of an EXO_HOME, starts it when none runs (detached, under a start lock), checks
// its protocol and build, and calls the methods of api's table. It links none of the daemon's
// server side (harness/daemon): the app, the CLI and the thin client use it and api.
package client
