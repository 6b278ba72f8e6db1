package daemon

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Bounds on the API's connections. A same-uid client that opened keep-alive connections and
// sent one request on each kept them for good: 21,000 filled the daemon's 20,000 descriptors
// and every later command hung. Idle keep-alive connections now close after connIdleTimeout,
// and past maxConns a new connection first closes the longest-idle ones; when none is idle
// (every connection streams or waits for an answer) it is told so and closed.
const connIdleTimeout = time.Minute

// streamWriteTimeout is how long a write to a stream (a watch, a tail, an exec's output) may
// wait for the client to read: one that reads nothing is cut, and frees what it held. A
// variable for tests.
var streamWriteTimeout = 30 * time.Second

// maxConns is how many API connections the daemon keeps at once: a quarter of its descriptor
// limit (the store, sandboxes, agents and relays need the rest), between 256 and 4,096.
func maxConns() int {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		return 1024
	}
	return int(min(max(rl.Cur/4, 256), 4096))
}

// connTracker knows the API's open connections and which of them are idle.
type connTracker struct {
	mu   sync.Mutex
	max  int
	open map[net.Conn]time.Time // idle since; zero while a request is served
	// refused counts connections turned away because every one was busy.
	refused int
}

// newConnTracker keeps at most max connections.
func newConnTracker(max int) *connTracker {
	return &connTracker{max: max, open: map[net.Conn]time.Time{}}
}

// state follows a connection through net/http's states.
func (t *connTracker) state(c net.Conn, st http.ConnState) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch st {
	case http.StateNew:
		t.open[c] = time.Now() // idle until its first request
	case http.StateActive:
		t.open[c] = time.Time{}
	case http.StateIdle:
		t.open[c] = time.Now()
	case http.StateClosed, http.StateHijacked:
		delete(t.open, c)
	}
}

// admit makes room for one more connection: it closes the longest-idle connections while the
// daemon is at its bound, and says false when all are busy.
func (t *connTracker) admit() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(t.open) >= t.max {
		var oldest net.Conn
		var since time.Time
		for c, idle := range t.open {
			if !idle.IsZero() && (oldest == nil || idle.Before(since)) {
				oldest, since = c, idle
			}
		}
		if oldest == nil {
			t.refused++
			return false
		}
		delete(t.open, oldest) // closed below; net/http reports StateClosed later
		oldest.Close()
	}
	return true
}

// limitListener admits connections through a connTracker.
type limitListener struct {
	net.Listener
	t *connTracker
}

// Accept returns the next connection there is room for; one there is none for is answered
// 503 with the reason and closed.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.t.admit() {
			return c, nil
		}
		go refuseConn(c, l.t.max)
	}
}

// refuseConn answers a connection that finds every one of the daemon's busy, then closes it.
// It answers at once, then reads what the client sends until the client closes (within the
// deadline): closed before the client's request was written, the socket made the client's
// write fail with a broken pipe, and it never read the reason.
func refuseConn(c net.Conn, max int) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	msg := fmt.Sprintf(`{"error":"the exo daemon already serves %d connections, all busy: close some clients (apps, tails) and try again","code":"busy"}`, max)
	if _, err := fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(msg), msg); err != nil {
		return
	}
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(c, 64<<10))
}
