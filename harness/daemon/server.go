package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"exo/harness/api"
	"exo/harness/daemon/wire"
	"exo/harness/service"
)

// Server serves one Service on a unix socket.
type Server struct {
	svc  *service.Service
	info api.DaemonInfo
	log  *slog.Logger
	http *http.Server
	mux  *http.ServeMux
	// patterns are the routes served, in the order registered (Routes).
	patterns []string

	conns    atomic.Int64 // open connections
	tracker  *connTracker // bounds them
	inflight atomic.Int64 // requests being served
	lastMu   sync.Mutex
	last     time.Time // when the last request ended or connection closed
	// done is closed when the server should stop (idle, drained or stopped).
	done     chan struct{}
	doneOnce sync.Once
	reason   atomic.Value // why it stops
	// cli runs relayed command lines (nil: the daemon does not relay them); relays are
	// their connections.
	cli    *CLI
	relays relays
}

// NewServer builds a server for a service.
func NewServer(svc *service.Service, info api.DaemonInfo, log *slog.Logger, cli *CLI) *Server {
	s := &Server{svc: svc, info: info, log: log, last: time.Now(), done: make(chan struct{}), cli: cli, tracker: newConnTracker(maxConns())}
	s.http = &http.Server{Handler: s.routes(), ConnState: s.connState, ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout: connIdleTimeout, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	return s
}

// Serve accepts clients on l until Stop, an idle timeout (info.IdleTimeout, 0 for never) or a
// drain; it then shuts the HTTP side down (streams are cut, clients reconnect to the next
// daemon).
func (s *Server) Serve(l net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- s.http.Serve(&limitListener{Listener: l, t: s.tracker}) }()
	go s.idleLoop()
	select {
	case err := <-errc:
		return err
	case <-s.done:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.http.Shutdown(ctx); err != nil {
		s.http.Close() // long streams do not end by themselves
	}
	s.relays.closeAll(ctx)
	<-errc
	return nil
}

// Stop makes Serve return; reason goes to the log.
func (s *Server) Stop(reason string) {
	s.doneOnce.Do(func() {
		s.reason.Store(reason)
		s.log.Info("daemon stopping", "reason", reason)
		close(s.done)
	})
}

// StopReason says why the server stopped ("" while it runs).
func (s *Server) StopReason() string {
	r, _ := s.reason.Load().(string)
	return r
}

// connState counts connections for the idle timer and the connection bound.
func (s *Server) connState(c net.Conn, st http.ConnState) {
	s.tracker.state(c, st)
	switch st {
	case http.StateNew:
		s.conns.Add(1)
	case http.StateClosed, http.StateHijacked:
		s.conns.Add(-1)
		s.touch()
	}
}

// touch records activity now.
func (s *Server) touch() {
	s.lastMu.Lock()
	s.last = time.Now()
	s.lastMu.Unlock()
}

// idleFor is how long the daemon has had no client and no work (0 while it has some).
func (s *Server) idleFor() time.Duration {
	if s.conns.Load() > 0 || s.inflight.Load() > 0 || s.svc.Busy() {
		return 0
	}
	s.lastMu.Lock()
	defer s.lastMu.Unlock()
	return time.Since(s.last)
}

// idleLoop stops the server after IdleTimeout with no clients and no work. It wakes only
// when the deadline could have passed, so an idle daemon costs no CPU between checks. Work seen
// busy at one check may have ended just after it: the idle time then counts from the next
// check, so the daemon stays between one and two IdleTimeouts after its last work.
func (s *Server) idleLoop() {
	limit := s.info.IdleTimeout
	if limit <= 0 {
		return
	}
	wait, wasBusy := limit, false
	for {
		t := time.NewTimer(wait)
		select {
		case <-s.done:
			t.Stop()
			return
		case <-t.C:
		}
		idle := s.idleFor()
		switch {
		case idle == 0 || wasBusy:
			s.touch() // busy now, or till lately: count the idle time from now
			wait, wasBusy = limit, idle == 0
		case idle >= limit:
			s.Stop("idle for " + limit.String())
			return
		default:
			wait = limit - idle
		}
	}
}

// handler wraps an endpoint: the protocol check, the in-flight count and error answers.
func (s *Server) handler(fn func(w http.ResponseWriter, r *http.Request) error) http.HandlerFunc {
	inner := s.anyProtocol(fn)
	return func(w http.ResponseWriter, r *http.Request) {
		if p := r.Header.Get(wire.HeaderProtocol); p != "" && p != wire.ProtocolString {
			writeError(w, errIncompatible(p))
			return
		}
		inner(w, r)
	}
}

// anyProtocol wraps an endpoint of the handshake (it answers clients of any protocol): the
// in-flight count and error answers.
func (s *Server) anyProtocol(fn func(w http.ResponseWriter, r *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.inflight.Add(1)
		defer func() {
			s.inflight.Add(-1)
			s.touch()
		}()
		err := fn(w, r)
		if err != nil && !(errors.Is(err, context.Canceled) && r.Context().Err() != nil) {
			writeError(w, err)
		}
		s.stopIfFaulted()
	}
}

// stopIfFaulted stops the daemon when bbolt failed under it (its file damaged or replaced while
// open): the next client starts a daemon that opens the file afresh and says what is wrong.
func (s *Server) stopIfFaulted() {
	if s.svc.Harness().Faulted() {
		s.Stop("the database failed while open: " + fmt.Sprint(s.svc.Harness().Damaged()))
	}
}
