package extexec

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handle answers one message of an agent's in-band channel (Claude's mcp_message control
// requests carry MCP's JSON-RPC one message at a time); it returns nil for a notification. An
// initialize starts a new session of the SDK server (Claude sends it again when it reconnects),
// so the handshake is answered every time. A call whose ctx ends first is cancelled in the
// server (notifications/cancelled) and answered when its tool has ended.
func (s *MCPServer) Handle(ctx context.Context, raw json.RawMessage) json.RawMessage {
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
			"error": &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "parse error: " + err.Error()}})
		return b
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return nil // a response: exo's tools never ask the agent anything
	}
	c, err := s.session(req.Method == "initialize")
	if err != nil {
		return inbandError(req, jsonrpc.CodeInternalError, "exo's tool server: "+err.Error())
	}
	if !req.IsCall() {
		_ = c.deliver(ctx, req)
		return nil
	}
	answer := c.expect(req.ID)
	defer c.forget(req.ID)
	if err := c.deliver(ctx, req); err != nil {
		return inbandError(req, jsonrpc.CodeInternalError, "exo's tool server: "+err.Error())
	}
	select {
	case r := <-answer:
		return encodeAnswer(req, r)
	case <-ctx.Done():
	case <-c.done:
		return inbandError(req, jsonrpc.CodeInternalError, "exo's tool server session ended")
	}
	// The call is cancelled in the server, and answered once the tool has ended (the agent's
	// channel waits for its handlers, so nothing of the call is left running behind it).
	if params, err := json.Marshal(map[string]any{"requestId": req.ID.Raw(), "reason": "the turn ended"}); err == nil {
		_ = c.deliver(context.Background(), &jsonrpc.Request{Method: "notifications/cancelled", Params: params})
	}
	select {
	case r := <-answer:
		return encodeAnswer(req, r)
	case <-c.done:
		return inbandError(req, jsonrpc.CodeInternalError, "exo's tool server session ended")
	}
}

// encodeAnswer encodes the server's answer to req.
func encodeAnswer(req *jsonrpc.Request, r *jsonrpc.Response) json.RawMessage {
	b, err := jsonrpc.EncodeMessage(r)
	if err != nil {
		return inbandError(req, jsonrpc.CodeInternalError, "exo's tool server: "+err.Error())
	}
	return b
}

// inbandError encodes an error answer to req.
func inbandError(req *jsonrpc.Request, code int64, msg string) json.RawMessage {
	b, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: code, Message: msg}})
	return b
}

// session returns the in-band session, starting a new one (and ending the old) when fresh is set
// or none runs yet.
func (s *MCPServer) session(fresh bool) (*inband, error) {
	srv := s.server()
	s.mu.Lock()
	old := s.inband
	if old != nil && !fresh {
		s.mu.Unlock()
		return old, nil
	}
	c := newInband()
	s.inband = c
	s.mu.Unlock()
	if old != nil {
		old.end()
	}
	if _, err := srv.Connect(context.Background(), c, nil); err != nil {
		return nil, err
	}
	return c, nil
}

// inband is the SDK transport of an in-band channel: Handle delivers each message the agent
// sent, the server's reader takes it, and the server's response goes back to the Handle
// waiting for its id. It is its own (single) connection.
type inband struct {
	in   chan jsonrpc.Message
	done chan struct{}
	once sync.Once

	mu      sync.Mutex
	waiting map[jsonrpc.ID]chan *jsonrpc.Response
}

func newInband() *inband {
	return &inband{in: make(chan jsonrpc.Message), done: make(chan struct{}), waiting: map[jsonrpc.ID]chan *jsonrpc.Response{}}
}

// errInbandClosed means the session ended (a newer initialize, or the agent stopped).
var errInbandClosed = errors.New("the in-band MCP session ended")

// deliver hands the server a message.
func (c *inband) deliver(ctx context.Context, m jsonrpc.Message) error {
	select {
	case c.in <- m:
		return nil
	case <-c.done:
		return errInbandClosed
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// expect registers a waiter for the response to id.
func (c *inband) expect(id jsonrpc.ID) <-chan *jsonrpc.Response {
	ch := make(chan *jsonrpc.Response, 1)
	c.mu.Lock()
	c.waiting[id] = ch
	c.mu.Unlock()
	return ch
}

// forget drops the waiter for id.
func (c *inband) forget(id jsonrpc.ID) {
	c.mu.Lock()
	delete(c.waiting, id)
	c.mu.Unlock()
}

// end closes the session.
func (c *inband) end() { c.once.Do(func() { close(c.done) }) }

// Connect implements sdk.Transport.
func (c *inband) Connect(context.Context) (sdk.Connection, error) { return c, nil }

// Read implements sdk.Connection: the next message the agent sent.
func (c *inband) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements sdk.Connection: a response goes to its waiting Handle. The server sends
// nothing else here (no list_changed, no logging, no requests to the agent); anything else is
// dropped.
func (c *inband) Write(_ context.Context, m jsonrpc.Message) error {
	r, ok := m.(*jsonrpc.Response)
	if !ok {
		return nil
	}
	c.mu.Lock()
	ch := c.waiting[r.ID]
	delete(c.waiting, r.ID)
	c.mu.Unlock()
	if ch != nil {
		ch <- r
	}
	return nil
}

// Close implements sdk.Connection.
func (c *inband) Close() error {
	c.end()
	return nil
}

// SessionID implements sdk.Connection (an in-band channel has no session id).
func (c *inband) SessionID() string { return "" }
