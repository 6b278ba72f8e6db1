package extexec

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"exo/harness/provider"
	"exo/harness/secrets"
)

// Endpoint is a loopback HTTP server through which one agent session reaches its model. The agent
// authenticates with a per-session random token; the endpoint forwards to the registered model
// with the sealed key and records every call through the session's Log.
type Endpoint struct {
	log    *Log
	up     Upstream
	token  string
	ln     net.Listener
	srv    *http.Server
	mux    *http.ServeMux
	client *http.Client
	// bodies redacts the session's request bodies.
	bodies bodyRedactor
	// idle is how long a passed-through answer stream may send nothing before exo cuts it (as
	// exo's own providers do, provider.DefaultIdleTimeout).
	idle time.Duration
}

// NewEndpoint starts an endpoint on 127.0.0.1 (a free port) for log's session.
func NewEndpoint(log *Log, up Upstream) (*Endpoint, error) {
	tok := make([]byte, 24)
	if _, err := rand.Read(tok); err != nil {
		return nil, fmt.Errorf("model endpoint token: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("model endpoint: %w", err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = 10 * time.Minute
	e := &Endpoint{log: log, up: up, token: "exo-" + hex.EncodeToString(tok), ln: ln, mux: http.NewServeMux(),
		client: &http.Client{Transport: tr}, idle: provider.DefaultIdleTimeout}
	e.mux.HandleFunc("POST /v1/messages", e.messages)
	e.mux.HandleFunc("POST /v1/responses", e.responses)
	e.mux.HandleFunc("POST "+geminiPathPrefix+"{call}", e.gemini)
	e.mux.HandleFunc("HEAD /", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	e.srv = &http.Server{Handler: http.HandlerFunc(e.serve), ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = e.srv.Serve(ln) }()
	return e, nil
}

// URL is the endpoint's base URL, e.g. http://127.0.0.1:41234.
func (e *Endpoint) URL() string { return "http://" + e.ln.Addr().String() }

// Token is the per-session secret the agent presents (as its API key).
func (e *Endpoint) Token() string { return e.token }

// Handle adds a route (token-checked like the others), e.g. an MCP server for agents that reach
// exo's tools over HTTP.
func (e *Endpoint) Handle(pattern string, h http.Handler) { e.mux.Handle(pattern, h) }

// Close stops the endpoint; calls in flight are cut.
func (e *Endpoint) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := e.srv.Shutdown(ctx); err != nil {
		return e.srv.Close()
	}
	return nil
}

// serve checks the token and routes.
func (e *Endpoint) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodHead && !e.authorized(r) {
		writeAPIError(w, http.StatusUnauthorized, "authentication_error", "exo: this endpoint takes the session token it gave the agent")
		return
	}
	e.mux.ServeHTTP(w, r)
}

// authorized checks x-api-key, a bearer token or x-goog-api-key against the session token.
func (e *Endpoint) authorized(r *http.Request) bool {
	got := r.Header.Get("X-Api-Key")
	if got == "" {
		got, _ = strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	if got == "" { // the Gemini API's header, or its key parameter
		got = firstNonEmpty(r.Header.Get("X-Goog-Api-Key"), r.URL.Query().Get("key"))
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(e.token)) == 1
}

// answerRedactor returns a redactor for an answer on its way to the agent (nil when no secret is
// sealed).
func (e *Endpoint) answerRedactor() *sseRedactor {
	h := e.log.h
	if h.RedactStream() == nil {
		return nil
	}
	return newSSERedactor(h.Redact, func() *secrets.Stream {
		if s := h.RedactStream(); s != nil {
			return s
		}
		return secrets.NewRedactor(nil).NewStream() // the secrets were removed meanwhile
	})
}

// writeAPIError answers in the Anthropic error shape (which agents of other wires also read as
// a plain JSON error).
func writeAPIError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":%q}}`, typ, msg)
}
