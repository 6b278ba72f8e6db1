// Package daemon is exo's daemon: one per EXO_HOME, it owns the store, the sandboxes, running
// turns and background tasks, and serves the harness API (harness/api) over HTTP on a unix
// socket. Its handlers are registered from api's method table; the client every exo command
// uses is harness/daemon/client, and what both ends share on the socket is harness/daemon/wire.
package daemon
