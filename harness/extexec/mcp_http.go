package extexec

import (
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// MCPPath is where an endpoint serves exo's tools over MCP's streamable HTTP transport.
const MCPPath = "/mcp"

// ServeMCP serves s on the endpoint at MCPPath for agents that reach MCP servers over HTTP (ACP
// agents get it in session/new). Each POST carries one JSON-RPC message and is answered with
// JSON (a notification with 202); the endpoint's token guards it like the model routes.
func (e *Endpoint) ServeMCP(s *MCPServer) {
	e.mux.HandleFunc("POST "+MCPPath, func(w http.ResponseWriter, r *http.Request) {
		defer func(start time.Time) { e.log.AddOverhead(time.Since(start)) }(time.Now()) // the agent waits on exo (the tool run included)
		body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes))
		if err != nil {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		out := s.Handle(r.Context(), json.RawMessage(body))
		if out == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	})
	// No GET: exo's tools never notify, so there is no server-initiated stream; the mux answers
	// a GET with 405 (a GET route would also claim HEAD, which the endpoint's HEAD / answers).
	e.mux.HandleFunc("DELETE "+MCPPath, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
}
