package cli

import (
	"fmt"
	"io"
)

// telemetryNotice says, in one line, that the OTEL_* variables a command was given do not
// reach the daemon that runs it: its telemetry is set when it starts, from its own environment
// (fingerprints of both, see relay.TelemetryEnv). Nothing is said when the command has none.
func telemetryNotice(w io.Writer, client, daemon string, pid int) {
	if client == "" || client == daemon {
		return
	}
	fmt.Fprintf(w, "exo: the OTEL_* variables given here do not reach the running daemon (pid %d), which started with other ones or none; 'exo daemon stop' lets the next command start one with them\n", pid)
}
