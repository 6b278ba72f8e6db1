package client

import (
	"exo/harness/daemon/wire"
	"exo/harness/rundir"
)

// HomeDir returns EXO_HOME: $EXO_HOME, else ~/.exo (see rundir.HomeDir).
func HomeDir() (string, error) { return rundir.HomeDir() }

// RuntimeDir returns the per-user folder of daemon sockets and start locks, created 0700 and
// checked with lstat (see rundir.RuntimeDir).
func RuntimeDir() (string, error) { return rundir.RuntimeDir() }

// SocketPath returns the daemon socket of an EXO_HOME (see rundir.SocketPath).
func SocketPath(runtimeDir, home string) (string, error) { return rundir.SocketPath(runtimeDir, home) }

// startLockPath is the file racing clients lock while one of them starts the daemon.
func startLockPath(runtimeDir, home string) string { return rundir.StartLockPath(runtimeDir, home) }

// Protocol is the wire protocol's version this client speaks.
const Protocol = wire.Protocol

// LogName is the daemon's log in EXO_HOME.
const LogName = wire.LogName

// BuildID identifies this exo binary; the client and its daemon compare it.
func BuildID() string { return wire.BuildID() }
