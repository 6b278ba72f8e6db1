package claude

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
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

// conn is the control channel and message stream of one Claude process. One goroutine reads
// every line: control requests are answered at once (each in its own goroutine), control
// responses go to their waiting request, and everything else is queued for the running turn.
type conn struct {
	p *extexec.Process
	h handlers

	mu       sync.Mutex
	ctx      context.Context // the running turn's context, for tool calls
	pending  map[string]chan controlResponse
	cancels  map[string]context.CancelFunc
	next     int
	queue    [][]byte
	signal   chan struct{}
	closed   bool
	inflight sync.WaitGroup
}

// newConn starts reading p.
func newConn(p *extexec.Process, h handlers) *conn {
	c := &conn{p: p, h: h, ctx: context.Background(), pending: map[string]chan controlResponse{},
		cancels: map[string]context.CancelFunc{}, signal: make(chan struct{}, 1)}
	go c.read()
	return c
}

// read dispatches lines until stdout ends.
func (c *conn) read() {
	for line := range c.p.Lines() {
		var env envelope
		if json.Unmarshal(line, &env) != nil {
			continue // not JSON (a stray print): ignored
		}
		switch env.Type {
		case "control_request":
			c.serve(env)
		case "control_response":
			c.answered(env.Response)
		case "control_cancel_request":
			c.cancel(env.RequestID)
		default:
			c.push(line)
		}
	}
	c.mu.Lock()
	c.closed = true
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
	c.wake()
}

// push queues a message for the turn.
func (c *conn) push(line []byte) {
	c.mu.Lock()
	c.queue = append(c.queue, line)
	c.mu.Unlock()
	c.wake()
}

func (c *conn) wake() {
	select {
	case c.signal <- struct{}{}:
	default:
	}
}

// take returns the queued messages; closed is true once stdout ended and the queue is empty.
func (c *conn) take() (msgs [][]byte, closed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	msgs, c.queue = c.queue, nil
	return msgs, c.closed && len(msgs) == 0
}

// ready is signalled when messages may be waiting.
func (c *conn) ready() <-chan struct{} { return c.signal }

// setTurn sets the context tool calls run under.
func (c *conn) setTurn(ctx context.Context) {
	c.mu.Lock()
	c.ctx = ctx
	c.mu.Unlock()
}

// serve answers one control request in its own goroutine.
func (c *conn) serve(env envelope) {
	var r controlRequest
	if err := json.Unmarshal(env.Request, &r); err != nil {
		_ = c.p.Send(controlFailure(env.RequestID, "exo: unreadable request: "+err.Error()))
		return
	}
	c.mu.Lock()
	ctx, cancel := context.WithCancel(c.ctx)
	c.cancels[env.RequestID] = cancel
	c.mu.Unlock()
	c.inflight.Add(1)
	start := time.Now()
	go func() {
		defer c.inflight.Done()
		defer c.forget(env.RequestID)
		_ = c.p.Send(c.answer(ctx, env.RequestID, r))
		if c.h.spent != nil {
			c.h.spent(time.Since(start))
		}
	}()
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

// forget drops a finished request's cancel function.
func (c *conn) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cancel := c.cancels[id]; cancel != nil {
		cancel()
		delete(c.cancels, id)
	}
}

// cancel stops a request Claude no longer wants answered (it was interrupted).
func (c *conn) cancel(id string) {
	c.mu.Lock()
	cancel := c.cancels[id]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// cancelAll stops every request still being answered (Claude is gone: nobody reads the answers).
func (c *conn) cancelAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cancel := range c.cancels {
		cancel()
	}
}

// errAgentGone means the process ended before answering.
var errAgentGone = errors.New("claude exited")

// request sends a control request to Claude and waits for its response.
func (c *conn) request(subtype string, fields map[string]any, timeout time.Duration) (json.RawMessage, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errAgentGone
	}
	c.next++
	id := "exo_" + subtype + "_" + strconv.Itoa(c.next)
	ch := make(chan controlResponse, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	req := map[string]any{"subtype": subtype}
	for k, v := range fields {
		req[k] = v
	}
	if err := c.p.Send(map[string]any{"type": "control_request", "request_id": id, "request": req}); err != nil {
		c.drop(id)
		return nil, err
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, errAgentGone
		}
		if r.Subtype == "error" {
			return nil, fmt.Errorf("claude refused %s: %s", subtype, r.Error)
		}
		return r.Response, nil
	case <-time.After(timeout):
		c.drop(id)
		return nil, fmt.Errorf("claude did not answer %s within %s", subtype, timeout)
	}
}

func (c *conn) drop(id string) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// answered delivers a control response to its request.
func (c *conn) answered(raw json.RawMessage) {
	var r controlResponse
	if json.Unmarshal(raw, &r) != nil {
		return
	}
	c.mu.Lock()
	ch := c.pending[r.RequestID]
	delete(c.pending, r.RequestID)
	c.mu.Unlock()
	if ch != nil {
		ch <- r
	}
}

// waitHandlers waits (up to timeout) for control requests still being answered.
func (c *conn) waitHandlers(timeout time.Duration) {
	done := make(chan struct{})
	go func() { c.inflight.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
	}
}
