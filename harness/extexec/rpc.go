package extexec

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// RPC is JSON-RPC over an agent's newline-delimited stdin and stdout (Codex's app-server, which
// leaves out the jsonrpc field), on the Pump: responses go to their waiting Call, requests from
// the agent are answered by the handler (each in its own goroutine, under the context
// SetContext gave), and notifications are queued for the running turn.
type RPC struct {
	*Pump[Notification, rpcResult]
	handler RPCHandler
	version bool // send "jsonrpc":"2.0"
	observe func(Notification)
}

// RPCOptions configure an RPC connection.
type RPCOptions struct {
	// Handler answers the agent's requests.
	Handler RPCHandler
	// Version says whether messages carry "jsonrpc":"2.0".
	Version bool
	// Agent names the agent in errors ("codex"); "the agent" when empty.
	Agent string
	// Spent, when set, is told how long each answer to the agent took.
	Spent func(time.Duration)
	// Observe, when set, sees each notification in order as it is read, before it is queued
	// (for bookkeeping the answers to later requests need).
	Observe func(Notification)
}

// RPCHandler answers a request from the agent: a result, or an error.
type RPCHandler func(ctx context.Context, method string, params json.RawMessage) (any, *RPCError)

// RPCError is a JSON-RPC error.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Error renders the error.
func (e *RPCError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// Notification is a message from the agent that wants no answer.
type Notification struct {
	Method string
	Params json.RawMessage
}

// rpcLine is any message on the wire.
type rpcLine struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *RPCError       `json:"error,omitempty"`
}

// rpcResult is a response: its result or its error.
type rpcResult struct {
	result json.RawMessage
	err    *RPCError
}

// NewRPC starts reading p.
func NewRPC(p *Process, o RPCOptions) *RPC {
	c := &RPC{handler: o.Handler, version: o.Version, observe: o.Observe}
	c.Pump = NewPump(p, PumpOptions[Notification, rpcResult]{Read: c.read, Agent: o.Agent, Spent: o.Spent})
	return c
}

// read classifies one line: a request (method and id), a notification (method), a response (id).
func (c *RPC) read(line []byte) Inbound[Notification, rpcResult] {
	var m rpcLine
	if json.Unmarshal(line, &m) != nil {
		return Inbound[Notification, rpcResult]{}
	}
	switch {
	case m.Method != "" && len(m.ID) > 0:
		return Inbound[Notification, rpcResult]{Kind: Request, ID: string(m.ID), Answer: func(ctx context.Context) any {
			res, rerr := c.handler(ctx, m.Method, m.Params)
			out := map[string]any{"id": m.ID}
			if rerr != nil {
				out["error"] = rerr
			} else {
				out["result"] = res
			}
			return c.frame(out)
		}}
	case m.Method != "":
		n := Notification{Method: m.Method, Params: m.Params}
		if c.observe != nil {
			c.observe(n)
		}
		return Inbound[Notification, rpcResult]{Kind: Notice, Notice: n}
	case len(m.ID) > 0:
		key := string(m.ID)
		if s, err := strconv.Unquote(key); err == nil {
			key = s
		}
		return Inbound[Notification, rpcResult]{Kind: Reply, ID: key, Reply: rpcResult{result: m.Result, err: m.Error}}
	}
	return Inbound[Notification, rpcResult]{}
}

// frame adds the version field when the agent wants it.
func (c *RPC) frame(m map[string]any) map[string]any {
	if c.version {
		m["jsonrpc"] = "2.0"
	}
	return m
}

// Call sends a request and waits for its result (ctx or timeout end the wait).
func (c *RPC) Call(ctx context.Context, method string, params any, timeout time.Duration) (json.RawMessage, error) {
	r, err := c.Pump.Call(ctx, method, timeout, func(n int) (string, any) {
		return strconv.Itoa(n), c.frame(map[string]any{"id": n, "method": method, "params": params})
	})
	if err != nil {
		return nil, err
	}
	if r.err != nil {
		return nil, fmt.Errorf("%s: %w", method, r.err)
	}
	return r.result, nil
}

// Notify sends a notification.
func (c *RPC) Notify(method string, params any) error {
	m := map[string]any{"method": method}
	if params != nil {
		m["params"] = params
	}
	return c.Send(c.frame(m))
}
