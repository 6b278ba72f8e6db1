package daemon

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/governance"
	"exo/harness/relay"
)

// protocolString is Protocol as it travels in headers.
var protocolString = strconv.Itoa(Protocol)

// errIncompatible is the answer to a client of another protocol version.
func errIncompatible(p string) error {
	return fmt.Errorf("%w: this exo daemon speaks protocol %d, the client %s: run 'exo daemon stop' and try again",
		api.ErrInvalid, Protocol, p)
}

// routes maps the API's endpoints. README lists them.
func (s *Server) routes() http.Handler {
	m := http.NewServeMux()
	h := func(pattern string, fn func(w http.ResponseWriter, r *http.Request) error) {
		m.Handle(pattern, s.handler(fn))
	}
	// hello and drain are the handshake: they answer clients of any protocol, so that an exo of
	// another version can still see which daemon runs and stop it.
	m.HandleFunc("GET /v1/hello", s.hello)
	m.Handle("POST /v1/daemon/drain", s.anyProtocol(s.drain))
	m.HandleFunc("POST "+relay.Path, s.serveRelay)
	h("GET /v1/activity", func(w http.ResponseWriter, r *http.Request) error {
		a, err := s.svc.Activity(r.Context())
		a.Connections = int(s.conns.Load())
		return reply(w)(a, err)
	})
	h("GET /v1/doctor", func(w http.ResponseWriter, r *http.Request) error {
		return reply(w)(s.svc.Doctor(r.Context(), r.URL.Query().Get("workspace")))
	})
	h("GET /v1/mcp", func(w http.ResponseWriter, r *http.Request) error {
		q := r.URL.Query()
		return reply(w)(s.svc.MCPStatus(r.Context(), q.Get("workspace"), q.Get("check") == "1"))
	})
	h("GET /v1/trust", func(w http.ResponseWriter, r *http.Request) error {
		return reply(w)(s.svc.ProjectTrust(r.Context(), r.URL.Query().Get("workspace")))
	})
	h("POST /v1/trust", func(w http.ResponseWriter, r *http.Request) error {
		var req api.TrustRequest
		if err := readJSON(r, &req); err != nil {
			return err
		}
		return reply(w)(s.svc.Trust(r.Context(), req))
	})
	h("POST /v1/redact", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Text string `json:"text"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		red, err := s.svc.Redact(r.Context(), body.Text)
		return reply(w)(struct {
			Text string `json:"text"`
		}{red}, err)
	})
	s.sessionRoutes(h)
	s.turnRoutes(h)
	s.sandboxRoutes(h)
	s.registryRoutes(h)
	s.governanceRoutes(h)
	s.lifecycleRoutes(h)
	h("GET /v1/watch", s.watch)
	h("PUT /v1/watch/{watch}/attach", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Session string `json:"session"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		return ok(w, s.svc.Attach(r.Context(), r.PathValue("watch"), body.Session))
	})
	return m
}

// reply writes a result or returns its error.
func reply(w http.ResponseWriter) func(any, error) error {
	return func(v any, err error) error {
		if err != nil {
			return err
		}
		writeJSON(w, v)
		return nil
	}
}

// ok answers an empty success or returns the error.
func ok(w http.ResponseWriter, err error) error {
	if err != nil {
		return err
	}
	writeJSON(w, struct{}{})
	return nil
}

// hello tells a client which daemon it reached.
func (s *Server) hello(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, s.info)
}

// drain stops the daemon: at once, or, for a client of another build that would replace it
// (if_idle), only when that build is newer and the daemon is idle: no running work, no client
// following it and no other request in flight.
func (s *Server) drain(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		IfIdle bool   `json:"if_idle"`
		Reason string `json:"reason"`
	}
	if err := readJSON(r, &body); err != nil {
		return err
	}
	if body.IfIdle {
		if err := s.replaceable(r); err != nil {
			return err
		}
	}
	writeJSON(w, struct {
		Pid int `json:"pid"`
	}{s.info.Pid})
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
	if r.Header.Get(headerBuild) == s.info.Build {
		return fmt.Errorf("%w: a client of the same build does not replace its daemon", api.ErrBusy)
	}
	built, err := time.Parse(time.RFC3339Nano, r.Header.Get(headerBuilt))
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

// sessionRoutes maps sessions, branches and logs.
func (s *Server) sessionRoutes(h func(string, func(http.ResponseWriter, *http.Request) error)) {
	h("GET /v1/sessions", func(w http.ResponseWriter, r *http.Request) error { return reply(w)(s.svc.ListSessions(r.Context())) })
	h("POST /v1/sessions", func(w http.ResponseWriter, r *http.Request) error {
		var req api.NewSessionRequest
		if err := readJSON(r, &req); err != nil {
			return err
		}
		return reply(w)(s.svc.NewSession(r.Context(), req))
	})
	h("GET /v1/sessions/{ref}", func(w http.ResponseWriter, r *http.Request) error {
		return reply(w)(s.svc.Session(r.Context(), r.PathValue("ref")))
	})
	h("POST /v1/sessions/{ref}/takeover", func(w http.ResponseWriter, r *http.Request) error {
		return reply(w)(s.svc.TakeOver(r.Context(), r.PathValue("ref")))
	})
	h("POST /v1/sessions/{id}/settings", func(w http.ResponseWriter, r *http.Request) error {
		var body struct{ Key, Value string }
		if err := readJSON(r, &body); err != nil {
			return err
		}
		return reply(w)(s.svc.SetSetting(r.Context(), r.PathValue("id"), body.Key, body.Value))
	})
	h("POST /v1/sessions/{id}/fork", func(w http.ResponseWriter, r *http.Request) error {
		var req api.ForkRequest
		if err := readJSON(r, &req); err != nil {
			return err
		}
		req.Session = r.PathValue("id")
		return reply(w)(s.svc.Fork(r.Context(), req))
	})
	h("POST /v1/sessions/{id}/rewind", func(w http.ResponseWriter, r *http.Request) error {
		seq, err := uintParam(r, "seq")
		if err != nil {
			return err
		}
		return reply(w)(s.svc.Rewind(r.Context(), r.PathValue("id"), seq))
	})
	h("GET /v1/sessions/{id}/rewind", func(w http.ResponseWriter, r *http.Request) error {
		seq, err := uintParam(r, "seq")
		if err != nil {
			return err
		}
		return reply(w)(s.svc.RewindPreview(r.Context(), r.PathValue("id"), seq))
	})
	h("GET /v1/sessions/{id}/files", func(w http.ResponseWriter, r *http.Request) error {
		return reply(w)(s.svc.Files(r.Context(), r.PathValue("id")))
	})
	h("POST /v1/sessions/{id}/messages", func(w http.ResponseWriter, r *http.Request) error {
		var body struct{ Text, Source string }
		if err := readJSON(r, &body); err != nil {
			return err
		}
		return reply(w)(s.svc.Say(r.Context(), r.PathValue("id"), body.Text, body.Source))
	})
	h("GET /v1/sessions/{id}/events", s.tail)
	h("GET /v1/sessions/{id}/file", func(w http.ResponseWriter, r *http.Request) error {
		text, err := s.svc.FileAtSnapshot(r.Context(), r.PathValue("id"), r.URL.Query().Get("path"))
		return reply(w)(struct {
			Text string `json:"text"`
		}{text}, err)
	})
	h("GET /v1/branches/{branch}/state", func(w http.ResponseWriter, r *http.Request) error {
		if r.URL.Query().Has("seq") {
			seq, err := uintParam(r, "seq")
			if err != nil {
				return err
			}
			return reply(w)(s.svc.StateAt(r.Context(), r.PathValue("branch"), seq))
		}
		return reply(w)(s.svc.State(r.Context(), r.PathValue("branch")))
	})
	h("GET /v1/branches/{branch}/events", func(w http.ResponseWriter, r *http.Request) error {
		from, err := uintParam(r, "from")
		if err != nil {
			return err
		}
		to, err := uintParam(r, "to")
		if err != nil {
			return err
		}
		return reply(w)(s.svc.Events(r.Context(), r.PathValue("branch"), max(from, 1), to))
	})
	h("GET /v1/branches/{branch}/points", func(w http.ResponseWriter, r *http.Request) error {
		return reply(w)(s.svc.BranchPoints(r.Context(), r.PathValue("branch")))
	})
	h("GET /v1/verify", func(w http.ResponseWriter, r *http.Request) error {
		return reply(w)(s.svc.Verify(r.Context(), r.URL.Query().Get("session")))
	})
	h("GET /v1/artifacts/{id}", func(w http.ResponseWriter, r *http.Request) error {
		rc, err := s.svc.Artifact(r.Context(), r.PathValue("id"))
		if err != nil {
			return err
		}
		defer rc.Close()
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = io.Copy(w, rc)
		return nil
	})
}

// turnRoutes maps turns and approvals.
func (s *Server) turnRoutes(h func(string, func(http.ResponseWriter, *http.Request) error)) {
	h("POST /v1/sessions/{id}/turns", func(w http.ResponseWriter, r *http.Request) error {
		var req api.TurnRequest
		if err := readJSON(r, &req); err != nil {
			return err
		}
		req.Session = r.PathValue("id")
		return reply(w)(s.svc.StartTurn(r.Context(), req))
	})
	h("GET /v1/sessions/{id}/turns/wait", func(w http.ResponseWriter, r *http.Request) error {
		return reply(w)(s.svc.WaitTurn(r.Context(), r.PathValue("id"), r.URL.Query().Get("turn")))
	})
	h("PUT /v1/sessions/{id}/executor", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Name string `json:"name"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		return reply(w)(s.svc.SelectExecutor(r.Context(), r.PathValue("id"), body.Name))
	})
	h("POST /v1/sessions/{id}/cancel", func(w http.ResponseWriter, r *http.Request) error {
		return ok(w, s.svc.CancelTurn(r.Context(), r.PathValue("id")))
	})
	h("POST /v1/sessions/{id}/approvals", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			CallID   string `json:"call_id"`
			Decision string `json:"decision"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		return ok(w, s.svc.Approve(r.Context(), r.PathValue("id"), body.CallID, body.Decision))
	})
	h("POST /v1/sessions/{id}/gate", func(w http.ResponseWriter, r *http.Request) error {
		var req api.GateRequest
		if err := readJSON(r, &req); err != nil {
			return err
		}
		req.Session = r.PathValue("id")
		return reply(w)(s.svc.Gate(r.Context(), req))
	})
	h("POST /v1/sessions/{id}/compact", func(w http.ResponseWriter, r *http.Request) error {
		return reply(w)(s.svc.Compact(r.Context(), r.PathValue("id")))
	})
}

// sandboxRoutes maps commands and background tasks.
func (s *Server) sandboxRoutes(h func(string, func(http.ResponseWriter, *http.Request) error)) {
	h("POST /v1/sessions/{id}/exec", s.exec)
	h("GET /v1/sessions/{id}/enforcement", func(w http.ResponseWriter, r *http.Request) error {
		return reply(w)(s.svc.Enforcement(r.Context(), r.PathValue("id")))
	})
	h("POST /v1/tasks", func(w http.ResponseWriter, r *http.Request) error {
		var body struct{ Session, Command string }
		if err := readJSON(r, &body); err != nil {
			return err
		}
		return reply(w)(s.svc.StartTask(r.Context(), body.Session, body.Command))
	})
	h("GET /v1/tasks", func(w http.ResponseWriter, r *http.Request) error { return reply(w)(s.svc.Tasks(r.Context())) })
	h("GET /v1/tasks/{id}/output", func(w http.ResponseWriter, r *http.Request) error {
		pw := &lazyWriter{w: w}
		err := s.svc.TaskOutput(r.Context(), r.PathValue("id"), pw)
		if err != nil && !pw.started {
			return err
		}
		return nil
	})
	h("DELETE /v1/tasks/{id}", func(w http.ResponseWriter, r *http.Request) error {
		return ok(w, s.svc.KillTask(r.Context(), r.PathValue("id")))
	})
}

// registryRoutes maps models and secrets.
func (s *Server) registryRoutes(h func(string, func(http.ResponseWriter, *http.Request) error)) {
	h("GET /v1/models", func(w http.ResponseWriter, r *http.Request) error { return reply(w)(s.svc.Models(r.Context())) })
	h("GET /v1/model", func(w http.ResponseWriter, r *http.Request) error {
		return reply(w)(s.svc.Model(r.Context(), r.URL.Query().Get("name")))
	})
	h("POST /v1/models", func(w http.ResponseWriter, r *http.Request) error {
		var m harness.ModelSpec
		if err := readJSON(r, &m); err != nil {
			return err
		}
		return reply(w)(s.svc.RegisterModel(r.Context(), m))
	})
	h("POST /v1/models/remote", func(w http.ResponseWriter, r *http.Request) error {
		var q harness.RemoteQuery
		if err := readJSON(r, &q); err != nil {
			return err
		}
		return reply(w)(s.svc.RemoteModels(r.Context(), q))
	})
	h("DELETE /v1/models/{name}", func(w http.ResponseWriter, r *http.Request) error {
		return ok(w, s.svc.RemoveModel(r.Context(), r.PathValue("name")))
	})
	h("PUT /v1/models/default", func(w http.ResponseWriter, r *http.Request) error {
		var body struct{ Name string }
		if err := readJSON(r, &body); err != nil {
			return err
		}
		return ok(w, s.svc.SetDefaultModel(r.Context(), body.Name))
	})
	h("GET /v1/secrets", func(w http.ResponseWriter, r *http.Request) error { return reply(w)(s.svc.Secrets(r.Context())) })
	h("PUT /v1/secrets/{name}", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Value []byte `json:"value"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		err := s.svc.SetSecret(r.Context(), r.PathValue("name"), body.Value)
		clear(body.Value)
		return ok(w, err)
	})
	h("DELETE /v1/secrets/{name}", func(w http.ResponseWriter, r *http.Request) error {
		return ok(w, s.svc.RemoveSecret(r.Context(), r.PathValue("name")))
	})
}

// governanceRoutes maps scope, drift and the lifecycle.
func (s *Server) governanceRoutes(h func(string, func(http.ResponseWriter, *http.Request) error)) {
	h("GET /v1/sessions/{id}/scope", func(w http.ResponseWriter, r *http.Request) error {
		return reply(w)(s.svc.Scope(r.Context(), r.PathValue("id")))
	})
	h("PUT /v1/sessions/{id}/scope", func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Scope  governance.Scope `json:"scope"`
			Reason string           `json:"reason"`
		}
		if err := readJSON(r, &body); err != nil {
			return err
		}
		return reply(w)(s.svc.SetScope(r.Context(), r.PathValue("id"), body.Scope, body.Reason))
	})
	h("GET /v1/sessions/{id}/drift", func(w http.ResponseWriter, r *http.Request) error {
		return reply(w)(s.svc.Drift(r.Context(), r.PathValue("id")))
	})
	h("GET /v1/sessions/{id}/conflicts", func(w http.ResponseWriter, r *http.Request) error {
		d, err := s.svc.ConflictDiff(r.Context(), r.PathValue("id"), r.URL.Query().Get("with"))
		return reply(w)(struct {
			Diff string `json:"diff"`
		}{d}, err)
	})
	h("POST /v1/sessions/{id}/finish", func(w http.ResponseWriter, r *http.Request) error {
		var req api.FinishRequest
		if err := readJSON(r, &req); err != nil {
			return err
		}
		req.Session = r.PathValue("id")
		return reply(w)(s.svc.Finish(r.Context(), req))
	})
	h("POST /v1/sessions/{id}/handoff", func(w http.ResponseWriter, r *http.Request) error {
		var req api.HandoffRequest
		if err := readJSON(r, &req); err != nil {
			return err
		}
		req.Finish.Session = r.PathValue("id")
		return reply(w)(s.svc.Handoff(r.Context(), req))
	})
}

// uintParam parses an optional unsigned query parameter (0 when absent).
func uintParam(r *http.Request, name string) (uint64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %s=%q is not a number", api.ErrInvalid, name, v)
	}
	return n, nil
}

// lazyWriter marks whether anything was written, so an error before the first byte can still
// be answered as an error.
type lazyWriter struct {
	w       http.ResponseWriter
	started bool
}

func (l *lazyWriter) Write(p []byte) (int, error) {
	if !l.started {
		l.w.Header().Set("Content-Type", "application/octet-stream")
		l.started = true
	}
	return l.w.Write(p)
}
