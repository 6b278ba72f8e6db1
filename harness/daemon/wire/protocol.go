package wire

import (
	"strconv"
	"sync"
	"time"

	"exo/harness/relay"
)

// Protocol is the wire protocol's version: a client and a daemon of different versions do not
// talk (the newer asks an idle older daemon to exit).
const Protocol = relay.Protocol

// ProtocolString is Protocol as it travels in headers.
var ProtocolString = strconv.Itoa(Protocol)

// Headers every request carries.
const (
	HeaderProtocol = "X-Exo-Protocol"
	HeaderBuild    = "X-Exo-Build"
	// HeaderBuilt is the client's BuildTime (RFC 3339): a drain to replace the daemon is
	// accepted only from a newer build.
	HeaderBuilt = "X-Exo-Built"
)

// BuiltHeader is BuildTime as it travels.
var BuiltHeader = sync.OnceValue(func() string { return BuildTime().Format(time.RFC3339Nano) })

// LogName is the daemon's log in EXO_HOME; InfoName its description while it runs.
const (
	LogName  = "daemon.log"
	InfoName = "daemon.json"
)

// DaemonName is the daemon's own binary (app/daemon), which clients start when it sits beside
// them.
const DaemonName = "exo-daemon"

// NotifyFDEnv tells a daemon started by a client which inherited descriptor to report on.
const NotifyFDEnv = "EXO_DAEMON_NOTIFY_FD"

// MaxFrame bounds one stream line (a backlog chunk of big events).
const MaxFrame = 256 << 20
