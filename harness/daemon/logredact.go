package daemon

import (
	"io"
	"sync/atomic"
)

// redactingLog is the daemon log's writer: once the harness is open, each line (slog writes a
// record in one call) has sealed secrets' values redacted before it reaches daemon.log, so a
// warning or an error that quotes one cannot keep it on disk.
type redactingLog struct {
	w      io.Writer
	redact atomic.Pointer[func(string) string]
}

// setRedact installs the redactor (the harness's Redact, which follows secrets as they change).
func (l *redactingLog) setRedact(fn func(string) string) { l.redact.Store(&fn) }

// Write redacts p and writes it; it reports len(p) on success.
func (l *redactingLog) Write(p []byte) (int, error) {
	if fn := l.redact.Load(); fn != nil {
		if _, err := io.WriteString(l.w, (*fn)(string(p))); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return l.w.Write(p)
}
