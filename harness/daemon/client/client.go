package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"

	"exo/harness/api"
	"exo/harness/daemon/wire"
)

// Client is the harness API over a daemon's socket.
type Client struct {
	socket string
	http   *http.Client

	mu   sync.Mutex
	info api.DaemonInfo // the daemon this client reached (from its hello)
	home string
	// starter starts a new daemon when a request finds none (nil: the client never starts one).
	starter *starter
	// asIs keeps the daemon found whatever its build (exo daemon status and stop look at the
	// daemon that runs; replacing an older one would make them report or stop the wrong one).
	asIs bool
}

// Daemon describes the daemon this client reached (from its hello).
func (c *Client) Daemon() api.DaemonInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.info
}

// setInfo records the daemon a hello reached.
func (c *Client) setInfo(info api.DaemonInfo) {
	c.mu.Lock()
	c.info = info
	c.mu.Unlock()
}

var _ api.Client = (*Client)(nil)

// New returns a client of the daemon at socket (no connection is made yet). It never starts a
// daemon: Connect makes clients that do.
func New(socket string) *Client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
		MaxIdleConns:        8,
		MaxIdleConnsPerHost: 8,
		DisableCompression:  true,
	}
	return &Client{socket: socket, http: &http.Client{Transport: tr}}
}

// Hello asks the daemon who it is (it answers clients of any protocol).
func (c *Client) Hello(ctx context.Context) (api.DaemonInfo, error) {
	return callOnce(ctx, c, api.MethodHello, api.Empty{})
}

// Close releases idle connections.
func (c *Client) Close() error {
	c.http.CloseIdleConnections()
	return nil
}

// Request builds a request with the protocol headers (body nil for none). Do sends it as is.
func (c *Client) Request(ctx context.Context, method, path string, body any) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("encode request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://exo"+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set(wire.HeaderProtocol, wire.ProtocolString)
	req.Header.Set(wire.HeaderBuild, wire.BuildID())
	req.Header.Set(wire.HeaderBuilt, wire.BuiltHeader())
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// Do sends a request on the client's connections and returns the daemon's raw answer (for
// callers that speak the wire themselves).
func (c *Client) Do(req *http.Request) (*http.Response, error) { return c.http.Do(req) }

// do sends a request and returns the response of a success, or the error it carries. When the
// request could not reach a daemon (none listens: it was killed or went idle), a client that
// may start one starts it and sends the request again: nothing of it had been sent.
func (c *Client) do(ctx context.Context, method, path string, body any) (*http.Response, error) {
	resp, dialed, err := c.send(ctx, method, path, body)
	if err == nil || dialed || c.starter == nil || ctx.Err() != nil {
		return resp, err
	}
	if rerr := c.restart(ctx); rerr != nil {
		return nil, fmt.Errorf("%w (starting a new one: %w)", err, rerr)
	}
	resp, _, err = c.send(ctx, method, path, body)
	return resp, err
}

// send sends a request once; dialed is false when it never reached a daemon.
func (c *Client) send(ctx context.Context, method, path string, body any) (resp *http.Response, dialed bool, err error) {
	req, err := c.Request(ctx, method, path, body)
	if err != nil {
		return nil, true, err
	}
	resp, err = c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, true, ctx.Err()
		}
		var op *net.OpError
		return nil, !(errors.As(err, &op) && op.Op == "dial"), unreachable(c.socket, err)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		var re api.RemoteError
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if json.Unmarshal(b, &re) != nil || re.Message == "" {
			re.Message = fmt.Sprintf("exo daemon: %s: %s", resp.Status, strings.TrimSpace(string(b)))
		}
		return nil, true, &re
	}
	return resp, true, nil
}

// open sends a request of method m and returns the daemon's answer and the target it asked;
// start lets a client that may start a daemon start one when none answers.
func open[Req, Resp any](ctx context.Context, c *Client, m api.Method[Req, Resp], req Req, start bool) (*http.Response, string, error) {
	target, err := wire.Target(m.Endpoint(), req)
	if err != nil {
		return nil, "", err
	}
	var body any
	if m.Body {
		body = req
	}
	if !start {
		resp, _, err := c.send(ctx, m.Verb, target, body)
		return resp, target, err
	}
	resp, err := c.do(ctx, m.Verb, target, body)
	return resp, target, err
}

// call calls method m with req and decodes its JSON answer.
func call[Req, Resp any](ctx context.Context, c *Client, m api.Method[Req, Resp], req Req) (Resp, error) {
	var out Resp
	resp, target, err := open(ctx, c, m, req, true)
	return out, decodeAnswer(resp, err, m.Verb, target, &out)
}

// callOnce is call without starting a daemon when none answers (the handshake).
func callOnce[Req, Resp any](ctx context.Context, c *Client, m api.Method[Req, Resp], req Req) (Resp, error) {
	var out Resp
	resp, target, err := open(ctx, c, m, req, false)
	return out, decodeAnswer(resp, err, m.Verb, target, &out)
}

// empty calls a method that answers nothing.
func empty[Req any](ctx context.Context, c *Client, m api.Method[Req, api.Empty], req Req) error {
	_, err := call(ctx, c, m, req)
	return err
}

// decodeAnswer decodes a JSON answer into out.
func decodeAnswer(resp *http.Response, err error, method, path string, out any) error {
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("exo daemon: bad answer to %s %s: %w", method, path, err)
	}
	return nil
}

// unreachable explains a connection failure.
func unreachable(socket string, err error) error {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return fmt.Errorf("%w (%s): %v", api.ErrUnavailable, socket, err)
	}
	return fmt.Errorf("exo daemon at %s: %w", socket, err)
}

// errOnce keeps the first error of a stream.
type errOnce struct {
	mu  sync.Mutex
	err error
}

func (e *errOnce) set(err error) {
	e.mu.Lock()
	if e.err == nil {
		e.err = err
	}
	e.mu.Unlock()
}

func (e *errOnce) get() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}
