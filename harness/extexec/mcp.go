package extexec

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"exo/harness/provider"
)

// ToolCaller runs one tool call: id is the agent's call id ("" when it gave none).
type ToolCaller func(ctx context.Context, id, name string, args json.RawMessage) (text string, isError bool)

// MCPServer is exo's tools as an MCP server, served by the official Go SDK over whichever
// transport the agent reaches it by: an agent's in-band channel (Claude's SDK MCP, see Handle)
// or streamable HTTP on the endpoint (ServeMCP). The tool set is Tools at the time of each
// tools/list; a call of any other name still goes to Call, which refuses it with an error result
// that exo records (never a protocol error the log would not show).
type MCPServer struct {
	// Name is the server's name (the agent shows tools as mcp__NAME__tool).
	Name    string
	Version string
	Tools   func(ctx context.Context) []provider.Tool
	Call    ToolCaller

	once sync.Once
	srv  *sdk.Server

	mu     sync.Mutex
	listed map[string]provider.Tool // the tools the SDK server holds now
	inband *inband                  // the in-band channel's session (nil before its first message)
}

// mcpInstructions tell the agent's model what exo's tools are.
const mcpInstructions = "These are exo's tools: commands run in the session's sandboxed shell and files change only inside the workspace and the session's scope."

// server returns the SDK server, built on first use.
func (s *MCPServer) server() *sdk.Server {
	s.once.Do(func() {
		s.srv = sdk.NewServer(&sdk.Implementation{Name: s.Name, Version: s.Version}, &sdk.ServerOptions{
			Instructions: mcpInstructions,
			// Tools only, with no list_changed notifications: the set is read again at each
			// tools/list, and exo never writes to the agent unasked.
			Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
		})
		s.srv.AddReceivingMiddleware(s.current)
	})
	return s.srv
}

// current keeps the SDK server's tools equal to Tools before each tools/list, and hands a call
// of a tool it does not hold to Call as well (exo refuses it there, with a recorded result).
func (s *MCPServer) current(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		switch method {
		case "tools/list":
			s.sync(ctx)
		case "tools/call":
			r, ok := req.(*sdk.CallToolRequest)
			if !ok || r.Params == nil || r.Params.Name == "" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "tools/call needs a name and arguments"}
			}
			if !s.holds(r.Params.Name) {
				return s.call(ctx, r)
			}
		}
		return next(ctx, method, req)
	}
}

// holds reports whether the SDK server lists name.
func (s *MCPServer) holds(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.listed[name]
	return ok
}

// sync adds, replaces and removes the SDK server's tools to match Tools.
func (s *MCPServer) sync(ctx context.Context) {
	want := map[string]provider.Tool{}
	for _, t := range s.Tools(ctx) {
		want[t.Name] = t
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var gone []string
	for name := range s.listed {
		if _, ok := want[name]; !ok {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		s.srv.RemoveTools(gone...)
	}
	for name, t := range want {
		if old, ok := s.listed[name]; ok && old.Description == t.Description && string(old.Schema) == string(t.Schema) {
			continue
		}
		s.srv.AddTool(&sdk.Tool{Name: t.Name, Description: t.Description, InputSchema: objectSchema(t.Schema)}, s.call)
	}
	s.listed = want
}

// objectSchema is a tool's input schema as MCP requires it, a JSON object of type "object"
// (the SDK refuses any other); a tool without one takes any object.
func objectSchema(raw json.RawMessage) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m["type"] != "object" {
		return json.RawMessage(`{"type":"object"}`)
	}
	return raw
}

// call runs tools/call through Call; a failing tool is a result with isError, not a protocol
// error. Claude names its call id in _meta (claudecode/toolUseId).
func (s *MCPServer) call(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	id, _ := req.Params.Meta["claudecode/toolUseId"].(string)
	text, isErr := s.Call(ctx, id, req.Params.Name, rawJSON(req.Params.Arguments))
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, IsError: isErr}, nil
}

// Close ends the in-band session, if any; calls in flight are answered with an error.
func (s *MCPServer) Close() {
	s.mu.Lock()
	c := s.inband
	s.inband = nil
	s.mu.Unlock()
	if c != nil {
		c.end()
	}
}
