package provider

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// errIdle is the cause of a call cancelled by the idle watchdog.
var errIdle = errors.New("no data")

// meter counts the bytes of one response body, so that a cut stream can say
// how far it got, and restarts the idle watchdog whenever bytes arrive.
type meter struct {
	bytes atomic.Int64
	idle  time.Duration
	timer *time.Timer
	fail  atomic.Pointer[httpFailure]
}

// httpFailure is an HTTP error answer as received: status, headers and the
// start of the body.
type httpFailure struct {
	status int
	header http.Header
	body   []byte
}

// maxErrorBody bounds how much of an error answer is kept.
const maxErrorBody = 64 << 10

// failure returns the HTTP error answer of the call, or nil.
func (m *meter) failure() *httpFailure {
	if m == nil {
		return nil
	}
	return m.fail.Load()
}

// watch cancels the call with errIdle when no byte arrives for idle (from
// now, and after each read); stop ends the watch.
func (m *meter) watch(idle time.Duration, cancel context.CancelCauseFunc) (stop func()) {
	if idle <= 0 {
		return func() {}
	}
	m.idle = idle
	m.timer = time.AfterFunc(idle, func() { cancel(errIdle) })
	return func() { m.timer.Stop() }
}

// touch records n bytes read.
func (m *meter) touch(n int) {
	m.bytes.Add(int64(n))
	if m.timer != nil && n > 0 {
		m.timer.Reset(m.idle)
	}
}

type meterKey struct{}

// withMeter returns a context whose HTTP responses are counted by a new meter.
func withMeter(ctx context.Context) (context.Context, *meter) {
	m := &meter{}
	return context.WithValue(ctx, meterKey{}, m), m
}

// n returns the bytes read so far; a nil meter has read nothing.
func (m *meter) n() int64 {
	if m == nil {
		return 0
	}
	return m.bytes.Load()
}

// meteredTransport wraps response bodies of requests whose context carries a meter.
type meteredTransport struct {
	base http.RoundTripper
}

// RoundTrip sends the request and meters the response body.
func (t meteredTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.base.RoundTrip(req)
	if err != nil || res == nil || res.Body == nil {
		return res, err
	}
	m, ok := req.Context().Value(meterKey{}).(*meter)
	if !ok {
		return res, nil
	}
	if res.StatusCode >= 400 {
		body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		res.Body.Close()
		m.fail.Store(&httpFailure{status: res.StatusCode, header: res.Header.Clone(), body: body})
		res.Body = io.NopCloser(bytes.NewReader(body))
		return res, nil
	}
	res.Body = &meteredBody{ReadCloser: res.Body, m: m}
	return res, nil
}

type meteredBody struct {
	io.ReadCloser
	m *meter
}

// Read counts what passes through.
func (b *meteredBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.m.touch(n)
	return n, err
}

// meteredClient returns an HTTP client like c (or a default one) whose
// transport meters response bodies.
func meteredClient(c *http.Client) *http.Client {
	if c == nil {
		c = &http.Client{}
	}
	out := *c
	base := out.Transport
	if base == nil || base == http.DefaultTransport {
		base = streamTransport
	}
	out.Transport = meteredTransport{base: base}
	return &out
}
