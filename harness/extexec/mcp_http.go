package extexec

import (
	"net/http"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCPPath is where an endpoint serves exo's tools over MCP's streamable HTTP transport.
const MCPPath = "/mcp"

// ServeMCP serves s on the endpoint at MCPPath for agents that reach MCP servers over HTTP (ACP
// agents get it in session/new), with the SDK's streamable HTTP handler: stateless (every
// request stands alone, so a repeated initialize is answered too) and answering in JSON, since
// exo's tools never notify. The endpoint's token guards it like the model routes.
func (e *Endpoint) ServeMCP(s *MCPServer) {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.server() },
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: maxRequestBytes,
			PropagateRequestCancellation: true})
	serve := func(w http.ResponseWriter, r *http.Request) {
		defer func(start time.Time) { e.log.AddOverhead(time.Since(start)) }(time.Now()) // the agent waits on exo (the tool run included)
		h.ServeHTTP(w, r)
	}
	e.mux.HandleFunc("POST "+MCPPath, serve)
	// No GET: there is no server-initiated stream; the mux answers a GET with 405 (a GET route
	// would also claim HEAD, which the endpoint's HEAD / answers).
	e.mux.HandleFunc("DELETE "+MCPPath, serve)
}
