package claude

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"exo/harness/extexec"
)

// permission is the answer to a can_use_tool request.
type permission struct {
	Allow        bool
	Message      string
	UpdatedInput json.RawMessage
}

// handlers answer Claude's control requests.
type handlers struct {
	// mcp answers a message for the in-band MCP server named server.
	mcp func(ctx context.Context, server string, msg json.RawMessage) json.RawMessage
	// canUse decides a tool use.
	canUse func(ctx context.Context, r controlRequest) permission
	// hook answers a hook callback (exo's PreToolUse hook).
	hook func(ctx context.Context, r controlRequest) map[string]any
	// spent is told how long answering each request took (Claude waited that long on exo).
	spent func(time.Duration)
}

// conn is the control channel and message stream of one Claude process, on extexec's Pump:
// control requests are answered at once (each in its own goroutine), control responses go to
// their waiting request, control_cancel_request withdraws a request, and every other line is
// queued for the running turn as it came.
type conn struct {
	*extexec.Pump[[]byte, controlResponse]
	h handlers
}

// newConn starts reading p.
func newConn(p *extexec.Process, h handlers) *conn {
	c := &conn{h: h}
	c.Pump = extexec.NewPump(p, extexec.PumpOptions[[]byte, controlResponse]{Read: c.read, Agent: "claude", Spent: h.spent})
	return c
}

// read classifies one line by its type.
func (c *conn) read(line []byte) extexec.Inbound[[]byte, controlResponse] {
	type in = extexec.Inbound[[]byte, controlResponse]
	var env envelope
	if json.Unmarshal(line, &env) != nil {
		return in{} // not JSON (a stray print): skipped
	}
	switch env.Type {
	case "control_request":
		var r controlRequest
		if err := json.Unmarshal(env.Request, &r); err != nil {
			msg := controlFailure(env.RequestID, "exo: unreadable request: "+err.Error())
			return in{Kind: extexec.Request, ID: env.RequestID, Answer: func(context.Context) any { return msg }}
		}
		return in{Kind: extexec.Request, ID: env.RequestID, Answer: func(ctx context.Context) any { return c.answer(ctx, env.RequestID, r) }}
	case "control_response":
		var r controlResponse
		if json.Unmarshal(env.Response, &r) != nil {
			return in{}
		}
		return in{Kind: extexec.Reply, ID: r.RequestID, Reply: r}
	case "control_cancel_request":
		return in{Kind: extexec.Cancel, ID: env.RequestID}
	}
	return in{Kind: extexec.Notice, Notice: line}
}

// answer computes the response to one control request.
func (c *conn) answer(ctx context.Context, id string, r controlRequest) map[string]any {
	switch r.Subtype {
	case "mcp_message":
		resp := c.h.mcp(ctx, r.ServerName, r.Message)
		if resp == nil {
			resp = json.RawMessage(`{"jsonrpc":"2.0","result":{}}`)
		}
		return controlSuccess(id, map[string]any{"mcp_response": resp})
	case "can_use_tool":
		p := c.h.canUse(ctx, r)
		if !p.Allow {
			return controlSuccess(id, map[string]any{"behavior": "deny", "message": p.Message})
		}
		in := p.UpdatedInput
		if len(in) == 0 {
			in = r.Input
		}
		return controlSuccess(id, map[string]any{"behavior": "allow", "updatedInput": in})
	case "hook_callback":
		return controlSuccess(id, c.h.hook(ctx, r))
	}
	return controlFailure(id, "exo does not handle control request "+r.Subtype)
}

// request sends a control request to Claude and waits for its response.
func (c *conn) request(subtype string, fields map[string]any, timeout time.Duration) (json.RawMessage, error) {
	r, err := c.Call(context.Background(), subtype, timeout, func(n int) (string, any) {
		id := "exo_" + subtype + "_" + strconv.Itoa(n)
		req := map[string]any{"subtype": subtype}
		for k, v := range fields {
			req[k] = v
		}
		return id, map[string]any{"type": "control_request", "request_id": id, "request": req}
	})
	if err != nil {
		return nil, err
	}
	if r.Subtype == "error" {
		return nil, fmt.Errorf("claude refused %s: %s", subtype, r.Error)
	}
	return r.Response, nil
}
