package daemon

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"exo/harness/api"
	"exo/harness/daemon/wire"
	"exo/harness/relay"
)

// errIncompatible is the answer to a client of another protocol version.
func errIncompatible(p string) error {
	return fmt.Errorf("%w: this exo daemon speaks protocol %d, the client %s: run 'exo daemon stop' and try again",
		api.ErrInvalid, Protocol, p)
}

// routes maps the API's endpoints, each from its entry in api's method table.
func (s *Server) routes() http.Handler {
	s.mux = http.NewServeMux()
	// hello and drain are the handshake: they answer clients of any protocol, so that an exo of
	// another version can still see which daemon runs and stop it.
	s.register(api.MethodHello.Endpoint(), http.HandlerFunc(s.hello))
	handleWith(s, api.MethodDrain, s.drain)
	if api.MethodRelay.Path != relay.Path {
		panic("api.Relay's path is not relay.Path")
	}
	s.register(api.MethodRelay.Endpoint(), http.HandlerFunc(s.serveRelay))
	handle(s, api.MethodOpenAPI, func(context.Context, api.Empty) (map[string]any, error) { return openAPI() })
	handle(s, api.MethodActivity, func(ctx context.Context, _ api.Empty) (api.Activity, error) {
		a, err := s.svc.Activity(ctx)
		a.Connections = int(s.conns.Load())
		return a, err
	})
	handle(s, api.MethodDoctor, func(ctx context.Context, q api.WorkspaceRef) (api.DoctorReport, error) {
		return s.svc.Doctor(ctx, q.Workspace)
	})
	handle(s, api.MethodCommands, func(ctx context.Context, q api.WorkspaceRef) ([]api.CommandInfo, error) {
		return s.svc.Commands(ctx, q.Workspace)
	})
	handle(s, api.MethodMCPStatus, func(ctx context.Context, q api.MCPRequest) ([]mcpStatus, error) {
		return s.svc.MCPStatus(ctx, q.Workspace, q.Check)
	})
	handle(s, api.MethodProjectTrust, func(ctx context.Context, q api.WorkspaceRef) (api.ProjectTrust, error) {
		return s.svc.ProjectTrust(ctx, q.Workspace)
	})
	handle(s, api.MethodTrust, s.svc.Trust)
	handle(s, api.MethodRedact, func(ctx context.Context, q api.Text) (api.Text, error) {
		red, err := s.svc.Redact(ctx, q.Text)
		return api.Text{Text: red}, err
	})
	s.sessionRoutes()
	s.turnRoutes()
	s.sandboxRoutes()
	s.registryRoutes()
	s.governanceRoutes()
	s.lifecycleRoutes()
	s.attemptRoutes()
	handleWith(s, api.MethodWatch, func(w http.ResponseWriter, r *http.Request, q api.WatchQuery) error {
		return s.stream(w, r, api.WatchRequest{Attach: q.Attach, Client: q.Client})
	})
	handleEmpty(s, api.MethodAttach, func(ctx context.Context, q api.AttachRequest) error {
		return s.svc.Attach(ctx, q.Watch, q.Session)
	})
	handle(s, api.MethodPasteImage, s.svc.PasteImage)
	return s.mux
}

// register serves an endpoint's route with h and records it (Routes lists them).
func (s *Server) register(e api.Endpoint, h http.Handler) {
	s.mux.Handle(e.Pattern(), h)
	s.patterns = append(s.patterns, e.Pattern())
}

// Routes lists the patterns the server serves ("GET /v1/sessions"), in the order registered.
func (s *Server) Routes() []string { return append([]string(nil), s.patterns...) }

// handleWith serves method m with fn, which is given the decoded request and writes the answer
// itself (streams, bytes, the handshake).
func handleWith[Req, Resp any](s *Server, m api.Method[Req, Resp], fn func(w http.ResponseWriter, r *http.Request, req Req) error) {
	e := m.Endpoint()
	h := func(w http.ResponseWriter, r *http.Request) error {
		var req Req
		if err := wire.Decode(e, r, &req); err != nil {
			return err
		}
		return fn(w, r, req)
	}
	if m.Handshake {
		s.register(e, s.anyProtocol(h))
		return
	}
	s.register(e, s.handler(h))
}

// handle serves method m with fn: the request decoded, the answer encoded as JSON.
func handle[Req, Resp any](s *Server, m api.Method[Req, Resp], fn func(ctx context.Context, req Req) (Resp, error)) {
	handleWith(s, m, func(w http.ResponseWriter, r *http.Request, req Req) error {
		out, err := fn(r.Context(), req)
		if err != nil {
			return err
		}
		writeJSON(w, out)
		return nil
	})
}

// handleEmpty serves a method that answers nothing ({} on success).
func handleEmpty[Req any](s *Server, m api.Method[Req, api.Empty], fn func(ctx context.Context, req Req) error) {
	handle(s, m, func(ctx context.Context, req Req) (api.Empty, error) { return api.Empty{}, fn(ctx, req) })
}

// hello tells a client which daemon it reached.
func (s *Server) hello(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, s.info)
}

// drain stops the daemon: at once, or, for a client of another build that would replace it
// (if_idle), only when that build is newer and the daemon is idle: no running work, no client
// following it and no other request in flight.
func (s *Server) drain(w http.ResponseWriter, r *http.Request, body api.DrainRequest) error {
	if body.IfIdle {
		if err := s.replaceable(r); err != nil {
			return err
		}
	}
	writeJSON(w, api.DrainResult{Pid: s.info.Pid})
	if f, okf := w.(http.Flusher); okf {
		f.Flush()
	}
	reason := body.Reason
	if reason == "" {
		reason = "asked to stop"
	}
	go s.Stop(reason)
	return nil
}

// replaceable says why a client may not replace this daemon (nil when it may): only a newer
// build replaces an idle daemon, so two builds never take turns replacing each other.
func (s *Server) replaceable(r *http.Request) error {
	if r.Header.Get(wire.HeaderBuild) == s.info.Build {
		return fmt.Errorf("%w: a client of the same build does not replace its daemon", api.ErrBusy)
	}
	built, err := time.Parse(time.RFC3339Nano, r.Header.Get(wire.HeaderBuilt))
	if err != nil || !built.After(s.info.Built) {
		return fmt.Errorf("%w: only a newer build replaces this daemon (built %s)", api.ErrBusy, s.info.Built.Format(time.RFC3339))
	}
	switch {
	case s.svc.Busy():
		return fmt.Errorf("%w: the daemon is running turns, tasks or subagents", api.ErrBusy)
	case s.svc.Watchers() > 0:
		return fmt.Errorf("%w: clients follow the daemon (apps, exo tail)", api.ErrBusy)
	case s.inflight.Load() > 1:
		return fmt.Errorf("%w: the daemon is answering other requests", api.ErrBusy)
	}
	return nil
}

// lazyWriter marks whether anything was written, so an error before the first byte can still
// be answered as an error.
type lazyWriter struct {
	w       http.ResponseWriter
	started bool
}

// Write sets the content type before the first byte and writes p.
func (l *lazyWriter) Write(p []byte) (int, error) {
	if !l.started {
		l.w.Header().Set("Content-Type", "application/octet-stream")
		l.started = true
	}
	return l.w.Write(p)
}

// copyArtifact answers with an artifact's bytes.
func copyArtifact(w http.ResponseWriter, rc io.ReadCloser) {
	defer rc.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	_, _ = io.Copy(w, rc)
}
