package daemon

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"exo/harness/api"
	"exo/harness/daemon/wire"
	"exo/harness/relay"
)

// CLI runs the command lines thin exo clients relay to the daemon (see harness/relay).
type CLI struct {
	// Accepts says whether the daemon runs a command line; the client runs the full exo for
	// the others.
	Accepts func(args []string) bool
	// Run runs an accepted command line against the daemon's own harness (c, in process; the
	// command must not close it) and returns its exit code.
	Run func(ctx context.Context, c api.Client, inv relay.Invocation, sio relay.ServerIO) int
	// Max is the most command lines the daemon runs for thin clients at once (0: MaxRelays);
	// the client of one more is told so (exit 1) instead of being served.
	Max int
}

// MaxRelays is how many relayed command lines a daemon runs at once by default. Each holds a
// connection and its goroutines, and a follower (exo tail, exo run) a watch of the harness: a
// script starting thousands would otherwise take the daemon's file descriptors, which its
// store, artifacts and sandboxes need, and gigabytes of memory.
const MaxRelays = 1024

// relays tracks the connections of relayed command lines, which the HTTP server no longer
// owns once upgraded: the daemon cuts them when it stops.
type relays struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
	// running counts the command lines admitted (reserve) and not yet ended; full says the
	// last one asked for was refused (the daemon's log says so once per spell at the limit).
	running int
	full    bool
}

// reserve admits one more command line unless max run already; release ends it.
func (r *relays) reserve(max int) (ok, first bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running >= max {
		first = !r.full
		r.full = true
		return false, first
	}
	r.running++
	return true, false
}

// release ends a command line reserve admitted.
func (r *relays) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running--
	r.full = false
}

// add registers a connection; false once the daemon stops.
func (r *relays) add(c net.Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conns == nil {
		r.conns = map[net.Conn]struct{}{}
	}
	r.conns[c] = struct{}{}
}

// remove forgets a connection.
func (r *relays) remove(c net.Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.conns, c)
}

// closeAll cuts every relayed command line (the daemon stops: their clients say so), once
// those ending anyway have ended or ctx is done: a command whose end stopped the daemon (its
// store failed under it) still sends its exit code.
func (r *relays) closeAll(ctx context.Context) {
	for r.count() > 0 && ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Millisecond):
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for c := range r.conns {
		c.Close()
	}
}

// count is how many relayed command lines run.
func (r *relays) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.conns)
}

// serveRelay is POST /v1/cli: a thin exo client upgrades the request and the daemon runs its
// command line (see harness/relay). A client of another build or protocol gets 409 and runs
// the full exo, which replaces or explains this daemon.
func (s *Server) serveRelay(w http.ResponseWriter, r *http.Request) {
	switch {
	case s.cli == nil:
		http.Error(w, "this daemon does not relay command lines", http.StatusNotFound)
		return
	case !strings.EqualFold(r.Header.Get("Upgrade"), relay.Upgrade):
		http.Error(w, "upgrade to "+relay.Upgrade, http.StatusUpgradeRequired)
		return
	case r.Header.Get(relay.HeaderProtocol) != wire.ProtocolString || r.Header.Get(relay.HeaderBuild) != s.info.Build:
		http.Error(w, "another exo build: run the full exo", http.StatusConflict)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "cannot upgrade", http.StatusInternalServerError)
		return
	}
	limit := s.cli.Max
	if limit <= 0 {
		limit = MaxRelays
	}
	admitted, first := s.relays.reserve(limit)
	if !admitted {
		if first {
			s.log.Warn("relay: refusing command lines: as many run as the daemon takes at once", "max", limit)
		}
		http.Error(w, fmt.Sprintf("the exo daemon already runs %d command lines for thin clients, the most it takes at once: wait for some to end (exo tail and exo run follow until stopped)", limit), http.StatusServiceUnavailable)
		return
	}
	defer s.relays.release()
	s.inflight.Add(1)
	defer func() {
		s.inflight.Add(-1)
		s.touch()
	}()
	conn, rw, err := hj.Hijack()
	if err != nil {
		s.log.Warn("relay: upgrade failed", "err", err)
		return
	}
	s.relays.add(conn)
	defer s.relays.remove(conn)
	if _, err := rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " + relay.Upgrade + "\r\n\r\n"); err != nil {
		conn.Close()
		return
	}
	if err := rw.Flush(); err != nil {
		conn.Close()
		return
	}
	client := inProcess{s.svc}
	err = relay.Serve(context.Background(), conn, rw.Reader, s.declineRelay, func(ctx context.Context, inv relay.Invocation, sio relay.ServerIO) int {
		code := s.cli.Run(ctx, client, inv, sio)
		s.stopIfFaulted() // before the client has its exit code and runs its next command
		return code
	})
	if err != nil {
		s.log.Warn("relay: command line failed", "err", err)
	}
}

// declineRelay says why the daemon will not run a command line for its client ("" when it
// will): the client's EXO_HOME or environment differ from the daemon's, so the command would
// not do here what the user meant. The client then runs the full exo.
func (s *Server) declineRelay(inv relay.Invocation) string {
	if !s.cli.Accepts(inv.Args) {
		return "the daemon does not run this command for a thin client"
	}
	if filepath.Clean(inv.Home) != filepath.Clean(s.info.Home) {
		return "the client's EXO_HOME is " + inv.Home + ", this daemon's " + s.info.Home
	}
	if !filepath.IsAbs(inv.Dir) {
		return "the client's working directory is not absolute"
	}
	for _, k := range relay.EnvKeys {
		v, has := inv.Env[k]
		mine, ok := os.LookupEnv(k)
		if v != mine || has != ok {
			return "the client's " + k + " differs from the daemon's"
		}
	}
	return ""
}

// inProcess is the daemon's own service as a relayed command's client: closing it releases
// nothing (the service is the daemon's).
type inProcess struct{ api.Client }

// Close does nothing: the service outlives the command.
func (inProcess) Close() error { return nil }

// EventPages reads events a page at a time, in reused memory when the service can
// (api.EventPager).
func (c inProcess) EventPages(ctx context.Context, branch string, from, to uint64, fn func([]api.Event) error) error {
	return api.EventPagesOf(ctx, c.Client, branch, from, to, fn)
}
