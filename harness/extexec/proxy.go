package extexec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	stdlog "log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"exo/harness"
)

// maxRequestBytes bounds a model request body.
const maxRequestBytes = 64 << 20

// streamTap folds an answer of one wire format as it passes through the endpoint.
type streamTap interface {
	// event applies one server-sent event's data.
	event(data []byte)
	// whole applies a non-streamed answer.
	whole(raw []byte)
	// outcome says how the answer ended: complete, or failed with a kind and message.
	outcome() (complete bool, failKind, failMsg string)
	// answer is the answer as recorded.
	answer(took time.Duration) Answer
	// errorEvent is an error event of the wire saying msg, sent to the agent when exo cuts the
	// stream.
	errorEvent(msg string) []byte
}

// errStalled cuts an upstream stream that sent nothing for the endpoint's idle timeout.
var errStalled = errors.New("the answer stream stalled")

// readCall reads a model call's body, redacts it (see bodyRedactor.body) and splits its top level (see
// callBody); arrived is when the agent had sent it (exo's own time starts there).
func readCall(h *harness.Harness, bodies *bodyRedactor, w http.ResponseWriter, r *http.Request) (body []byte, doc callBody, arrived time.Time, ok bool) {
	body, err := readRequest(r)
	arrived = time.Now()
	if err != nil || len(body) > maxRequestBytes {
		writeAPIError(w, http.StatusBadRequest, "invalid_request_error", "exo: request body unreadable or over 64 MiB")
		return nil, doc, arrived, false
	}
	body = bodies.body(h, body)
	if doc, err = readBody(body); err != nil {
		writeAPIError(w, http.StatusBadRequest, "invalid_request_error", "exo: request body is not JSON: "+err.Error())
		return nil, doc, arrived, false
	}
	return body, doc, arrived, true
}

// readRequest reads a request's body (up to one byte over maxRequestBytes) into a buffer of the
// size it announces.
func readRequest(r *http.Request) ([]byte, error) {
	size := int64(bytes.MinRead)
	if r.ContentLength > 0 && r.ContentLength <= maxRequestBytes {
		size += r.ContentLength // and room for the read that finds the end
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	_, err := buf.ReadFrom(io.LimitReader(r.Body, maxRequestBytes+1))
	return buf.Bytes(), err
}

// withModel returns body with its model replaced (the agent may name another model for side
// calls; exo serves the registered one), given once.
func withModel(body []byte, model string) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	m["model"], _ = json.Marshal(model)
	out, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return out
}

// copyBuffers are the proxy's copy buffers, reused across calls.
var copyBuffers = &bufferPool{p: sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}}

// bufferPool is an httputil.BufferPool over a sync.Pool.
type bufferPool struct{ p sync.Pool }

// Get implements httputil.BufferPool.
func (b *bufferPool) Get() []byte { return *b.p.Get().(*[]byte) }

// Put implements httputil.BufferPool.
func (b *bufferPool) Put(buf []byte) { b.p.Put(&buf) }

// quietLog drops the proxy's own log lines.
var quietLog = stdlog.New(io.Discard, "", 0)

// forward sends a call to the provider at target with the sealed key (set by auth) through
// net/http/httputil's ReverseProxy, and streams the answer back: exo keeps only its part, the
// tap that folds the answer as it passes (see tapBody) and the redaction of what reaches the
// agent. The agent's token and Accept-Encoding are not forwarded (Go's transport negotiates its
// own encoding and decodes it, so the tap and the redaction read plain text); no X-Forwarded
// header is added.
func (e *Endpoint) forward(w http.ResponseWriter, r *http.Request, c *modelCall, body []byte, arrived time.Time, target string, auth func(http.Header), tap streamTap) {
	start := time.Now()
	e.log.overhead(start.Sub(arrived))
	u, err := url.Parse(target)
	if err != nil {
		e.failUp(w, r, c, "bad_request", err, start)
		return
	}
	ctx, cut := context.WithCancelCause(r.Context())
	defer cut(nil)
	p := &httputil.ReverseProxy{
		Transport:     e.client.Transport,
		FlushInterval: -1, // every chunk of an event stream reaches the agent as it comes
		BufferPool:    copyBuffers,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out = pr.Out.WithContext(ctx)
			pr.Out.Method = http.MethodPost
			pr.Out.URL = u
			pr.Out.Host = ""
			pr.Out.Body = io.NopCloser(bytes.NewReader(body))
			pr.Out.ContentLength = int64(len(body))
			pr.Out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
			for _, k := range []string{"X-Api-Key", "Authorization", "Accept-Encoding", "Content-Length"} {
				pr.Out.Header.Del(k)
			}
			auth(pr.Out.Header)
		},
		ModifyResponse: func(res *http.Response) error {
			e.answered(r, c, res, tap, start, ctx, cut)
			return nil
		},
		ErrorLog: quietLog, // a failure is recorded on the call, not printed on the daemon's stderr
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			e.failUp(w, r, c, "network", err, start)
		},
	}
	p.ServeHTTP(w, r)
}

// answered puts exo's tap and redaction on an answer's body before the proxy copies it: an
// error answer is read (up to 1 MiB), redacted and recorded as a failed call; an event stream
// is tapped and redacted as it passes; a whole answer is read, redacted and tapped. Each is
// recorded when the proxy closes it, after the agent was sent its last byte.
func (e *Endpoint) answered(r *http.Request, c *modelCall, res *http.Response, tap streamTap, start time.Time, ctx context.Context, cut context.CancelCauseFunc) {
	res.Header.Del("Content-Length") // the body changes length when redacted
	res.Header.Del("Content-Encoding")
	res.ContentLength = -1
	up := res.Body
	switch {
	case res.StatusCode != http.StatusOK:
		raw, _ := io.ReadAll(io.LimitReader(up, 1<<20))
		_ = up.Close()
		res.Body = io.NopCloser(bytes.NewReader(e.redactAnswer(raw)))
		e.relayError(r, c, res.StatusCode, raw, start)
	case strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream"):
		res.Body = e.newTapBody(r, c, up, tap, start, ctx, cut)
	default:
		raw, err := io.ReadAll(up)
		_ = up.Close()
		if err == nil {
			tap.whole(raw)
		}
		res.Body = &onClose{Reader: bytes.NewReader(e.redactAnswer(raw)), close: func() { e.finish(r, c, tap, err, start) }}
	}
}

// onClose is a body that runs close once when the proxy is done with it.
type onClose struct {
	io.Reader
	once  sync.Once
	close func()
}

// Close implements io.Closer.
func (b *onClose) Close() error {
	b.once.Do(b.close)
	return nil
}

// finish records the answer, a failure, or nothing when the agent went away mid-answer (it
// interrupted). An answer that arrived whole is recorded even if the agent hung up right after
// reading its end (Codex closes the connection on response.completed, before the upstream's EOF).
func (e *Endpoint) finish(r *http.Request, c *modelCall, tap streamTap, readErr error, start time.Time) {
	took := time.Since(start)
	complete, kind, msg := tap.outcome()
	switch {
	case complete && msg == "":
		c.completed(tap.answer(took))
	case r.Context().Err() != nil:
		c.abandoned(took)
	case msg != "":
		c.failed(kind, msg, true, took)
	case readErr != nil || !complete:
		msg := "the answer stream ended before it was complete"
		if readErr != nil {
			msg += ": " + readErr.Error()
		}
		c.failed("stream_cut", msg, true, took)
	default:
		c.completed(tap.answer(took))
	}
}

// redactAnswer redacts an answer that is not streamed (a whole answer, an error body) on its way
// to the agent.
func (e *Endpoint) redactAnswer(raw []byte) []byte {
	if e.log.h.RedactStream() == nil {
		return raw
	}
	return []byte(e.log.h.Redact(string(raw)))
}

// relayError records an error answer as a failed call (the agent is sent it redacted).
func (e *Endpoint) relayError(r *http.Request, c *modelCall, status int, raw []byte, start time.Time) {
	if r.Context().Err() != nil {
		c.abandoned(time.Since(start))
		return
	}
	kind, retry := statusKind(status)
	msg := fmt.Sprintf("HTTP %d from %s", status, e.up.Spec.Name)
	var ae struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &ae) == nil && ae.Error.Message != "" {
		msg += ": " + ae.Error.Message
	}
	c.failed(kind, msg, retry, time.Since(start))
}

// failUp answers a call that could not reach the provider and records it.
func (e *Endpoint) failUp(w http.ResponseWriter, r *http.Request, c *modelCall, kind string, err error, start time.Time) {
	if r.Context().Err() != nil || errors.Is(err, context.Canceled) {
		c.abandoned(time.Since(start))
		return
	}
	msg := fmt.Sprintf("exo could not reach %s: %v", e.up.Spec.Name, err)
	c.failed(kind, msg, true, time.Since(start))
	writeAPIError(w, http.StatusBadGateway, "api_error", msg)
}

// statusKind classifies an HTTP status as exo's providers do.
func statusKind(status int) (string, bool) {
	switch {
	case status == http.StatusTooManyRequests:
		return "rate_limited", true
	case status == 529 || status == http.StatusServiceUnavailable:
		return "overloaded", true
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return "auth", false
	case status >= 500:
		return "server", true
	}
	return "bad_request", false
}

// errKind maps an Anthropic or OpenAI stream error type to exo's failure kinds.
func errKind(t string) string {
	switch t {
	case "overloaded_error", "server_is_overloaded":
		return "overloaded"
	case "rate_limit_error", "rate_limit_exceeded":
		return "rate_limited"
	case "authentication_error", "permission_error", "invalid_api_key":
		return "auth"
	case "invalid_request_error":
		return "bad_request"
	}
	return "server"
}
