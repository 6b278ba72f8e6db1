package extexec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// RPC is JSON-RPC over an agent's newline-delimited stdin and stdout (Codex's app-server, which
// leaves out the jsonrpc field, and ACP agents, which send it). One goroutine reads every line:
// responses go to their waiting Call, requests from the agent are answered by the handler (each
// in its own goroutine, under the context SetContext gave), and notifications are queued for the
// running turn.
type RPC struct {
	p       *Process
	handler RPCHandler
	version bool // send "jsonrpc":"2.0"

	mu       sync.Mutex
	ctx      context.Context
	pending  map[string]chan rpcResult
	cancels  map[string]context.CancelFunc
	next     int
	queue    []Notification
	signal   chan struct{}
	closed   bool
	inflight sync.WaitGroup
	spent    func(time.Duration)
	observe  func(Notification)
}

// RPCOptions configure an RPC connection.
type RPCOptions struct {
	// Handler answers the agent's requests.
	Handler RPCHandler
	// Version says whether messages carry "jsonrpc":"2.0".
	Version bool
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

type rpcResult struct {
	result json.RawMessage
	err    *RPCError
}

// NewRPC starts reading p.
func NewRPC(p *Process, o RPCOptions) *RPC {
	c := &RPC{p: p, handler: o.Handler, version: o.Version, ctx: context.Background(), pending: map[string]chan rpcResult{},
		cancels: map[string]context.CancelFunc{}, signal: make(chan struct{}, 1), spent: o.Spent, observe: o.Observe}
	go c.read()
	return c
}

// read dispatches lines until stdout ends.
func (c *RPC) read() {
	for line := range c.p.Lines() {
		var m rpcLine
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			c.serve(m)
		case m.Method != "":
			n := Notification{Method: m.Method, Params: m.Params}
			if c.observe != nil {
				c.observe(n)
			}
			c.push(n)
		case len(m.ID) > 0:
			c.answered(m)
		}
	}
	c.mu.Lock()
	c.closed = true
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	for _, cancel := range c.cancels {
		cancel()
	}
	c.mu.Unlock()
	c.wake()
}

// push queues a notification.
func (c *RPC) push(n Notification) {
	c.mu.Lock()
	c.queue = append(c.queue, n)
	c.mu.Unlock()
	c.wake()
}

func (c *RPC) wake() {
	select {
	case c.signal <- struct{}{}:
	default:
	}
}

// Take returns the queued notifications; closed is true once stdout ended and nothing is left.
func (c *RPC) Take() (ns []Notification, closed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ns, c.queue = c.queue, nil
	return ns, c.closed && len(ns) == 0
}

// Ready is signalled when notifications may be waiting.
func (c *RPC) Ready() <-chan struct{} { return c.signal }

// SetContext sets the context the agent's requests are answered under (the running turn's).
func (c *RPC) SetContext(ctx context.Context) {
	c.mu.Lock()
	c.ctx = ctx
	c.mu.Unlock()
}

// serve answers a request from the agent in its own goroutine.
func (c *RPC) serve(m rpcLine) {
	c.mu.Lock()
	ctx, cancel := context.WithCancel(c.ctx)
	key := string(m.ID)
	c.cancels[key] = cancel
	c.mu.Unlock()
	start := time.Now()
	c.inflight.Add(1)
	go func() {
		defer c.inflight.Done()
		res, rerr := c.handler(ctx, m.Method, m.Params)
		c.mu.Lock()
		delete(c.cancels, key)
		c.mu.Unlock()
		cancel()
		out := map[string]any{"id": m.ID}
		if rerr != nil {
			out["error"] = rerr
		} else {
			out["result"] = res
		}
		_ = c.send(out)
		if c.spent != nil {
			c.spent(time.Since(start))
		}
	}()
}

// send writes one message.
func (c *RPC) send(m map[string]any) error {
	if c.version {
		m["jsonrpc"] = "2.0"
	}
	return c.p.Send(m)
}

// ErrAgentGone means the agent ended before answering.
var ErrAgentGone = errors.New("the agent exited")

// Call sends a request and waits for its result (ctx or timeout end the wait).
func (c *RPC) Call(ctx context.Context, method string, params any, timeout time.Duration) (json.RawMessage, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrAgentGone
	}
	c.next++
	id := c.next
	key := strconv.Itoa(id)
	ch := make(chan rpcResult, 1)
	c.pending[key] = ch
	c.mu.Unlock()
	if err := c.send(map[string]any{"id": id, "method": method, "params": params}); err != nil {
		c.drop(key)
		return nil, err
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, ErrAgentGone
		}
		if r.err != nil {
			return nil, fmt.Errorf("%s: %w", method, r.err)
		}
		return r.result, nil
	case <-ctx.Done():
		c.drop(key)
		return nil, ctx.Err()
	case <-timer.C:
		c.drop(key)
		return nil, fmt.Errorf("%s: no answer within %s", method, timeout)
	}
}

// Notify sends a notification.
func (c *RPC) Notify(method string, params any) error {
	m := map[string]any{"method": method}
	if params != nil {
		m["params"] = params
	}
	return c.send(m)
}

func (c *RPC) drop(key string) {
	c.mu.Lock()
	delete(c.pending, key)
	c.mu.Unlock()
}

// answered delivers a response to its Call.
func (c *RPC) answered(m rpcLine) {
	key := string(m.ID)
	if s, err := strconv.Unquote(key); err == nil {
		key = s
	}
	c.mu.Lock()
	ch := c.pending[key]
	delete(c.pending, key)
	c.mu.Unlock()
	if ch != nil {
		ch <- rpcResult{result: m.Result, err: m.Error}
	}
}

// CancelAll stops every request still being answered (the agent is gone).
func (c *RPC) CancelAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cancel := range c.cancels {
		cancel()
	}
}

// WaitHandlers waits (up to timeout) for the agent's requests still being answered.
func (c *RPC) WaitHandlers(timeout time.Duration) {
	done := make(chan struct{})
	go func() { c.inflight.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
	}
}
