package extexec

import (
	"context"
	"encoding/json"
	"fmt"

	"exo/harness/provider"
)

// MCPProtocolVersion is the MCP revision exo's tool server speaks when the client asks for one it
// does not know.
const MCPProtocolVersion = "2025-06-18"

// mcpVersions are the MCP revisions the server accepts as the client proposes them.
var mcpVersions = map[string]bool{"2024-11-05": true, "2025-03-26": true, "2025-06-18": true, "2025-11-25": true}

// ToolCaller runs one tool call: id is the agent's call id ("" when it gave none).
type ToolCaller func(ctx context.Context, id, name string, args json.RawMessage) (text string, isError bool)

// MCPServer is exo's tools as an MCP server (JSON-RPC 2.0), independent of transport: an agent's
// in-band channel (Claude's SDK MCP), HTTP, or stdio hand it each message. initialize and
// tools/list are answered the same every time (some agents send them twice).
type MCPServer struct {
	// Name is the server's name (the agent shows tools as mcp__NAME__tool).
	Name    string
	Version string
	Tools   func(ctx context.Context) []provider.Tool
	Call    ToolCaller
}

// rpcMessage is a JSON-RPC request or notification.
type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Handle answers one message; it returns nil for a notification (no answer is due).
func (s *MCPServer) Handle(ctx context.Context, raw json.RawMessage) json.RawMessage {
	var m rpcMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return rpcReply(json.RawMessage("null"), nil, &rpcError{Code: -32700, Message: "parse error: " + err.Error()})
	}
	if len(m.ID) == 0 {
		return nil
	}
	res, rerr := s.dispatch(ctx, m)
	return rpcReply(m.ID, res, rerr)
}

// dispatch runs a request.
func (s *MCPServer) dispatch(ctx context.Context, m rpcMessage) (any, *rpcError) {
	switch m.Method {
	case "initialize":
		return s.initialize(m.Params), nil
	case "ping":
		return struct{}{}, nil
	case "tools/list":
		return s.list(ctx), nil
	case "tools/call":
		return s.call(ctx, m.Params)
	case "resources/list":
		return map[string]any{"resources": []any{}}, nil
	case "prompts/list":
		return map[string]any{"prompts": []any{}}, nil
	}
	return nil, &rpcError{Code: -32601, Message: "method not found: " + m.Method}
}

// initialize answers the handshake, accepting the client's revision when known.
func (s *MCPServer) initialize(params json.RawMessage) any {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(params, &p)
	v := MCPProtocolVersion
	if mcpVersions[p.ProtocolVersion] {
		v = p.ProtocolVersion
	}
	return map[string]any{
		"protocolVersion": v,
		"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}},
		"serverInfo":      map[string]any{"name": s.Name, "version": s.Version},
		"instructions":    "These are exo's tools: commands run in the session's sandboxed shell and files change only inside the workspace and the session's scope.",
	}
}

// mcpTool is a tool as MCP lists it.
type mcpTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// list answers tools/list.
func (s *MCPServer) list(ctx context.Context) any {
	tools := []mcpTool{}
	for _, t := range s.Tools(ctx) {
		tools = append(tools, mcpTool{Name: t.Name, Description: t.Description, InputSchema: t.Schema})
	}
	return map[string]any{"tools": tools}
}

// call answers tools/call; a failing tool is a result with isError, not a protocol error.
func (s *MCPServer) call(ctx context.Context, params json.RawMessage) (any, *rpcError) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      map[string]any  `json:"_meta"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.Name == "" {
		return nil, &rpcError{Code: -32602, Message: fmt.Sprintf("tools/call needs a name and arguments (%v)", err)}
	}
	id, _ := p.Meta["claudecode/toolUseId"].(string)
	text, isErr := s.Call(ctx, id, p.Name, rawJSON(p.Arguments))
	return map[string]any{"content": []map[string]any{{"type": "text", "text": text}}, "isError": isErr}, nil
}

// rpcReply encodes a JSON-RPC response.
func rpcReply(id json.RawMessage, result any, rerr *rpcError) json.RawMessage {
	out := map[string]any{"jsonrpc": "2.0", "id": id}
	if rerr != nil {
		out["error"] = rerr
	} else {
		out["result"] = result
	}
	b, _ := json.Marshal(out)
	return b
}
