package extexec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
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

// dropRequestHeaders are not forwarded: the agent's token, hop-by-hop headers and encodings
// (Go's client negotiates its own).
var dropRequestHeaders = map[string]bool{"X-Api-Key": true, "Authorization": true, "Host": true, "Content-Length": true,
	"Accept-Encoding": true, "Connection": true, "Keep-Alive": true, "Te": true, "Trailer": true, "Transfer-Encoding": true,
	"Upgrade": true, "Proxy-Authorization": true}

// dropResponseHeaders are not copied back to the agent.
var dropResponseHeaders = map[string]bool{"Content-Length": true, "Content-Encoding": true, "Transfer-Encoding": true,
	"Connection": true, "Keep-Alive": true, "Trailer": true}

// forward sends a call to the provider at url with the sealed key (set by auth) and streams the
// answer back, folding it into tap as it passes.
func (e *Endpoint) forward(w http.ResponseWriter, r *http.Request, c *modelCall, body []byte, arrived time.Time, url string, auth func(http.Header), tap streamTap) {
	start := time.Now()
	e.log.overhead(start.Sub(arrived))
	ctx, cut := context.WithCancelCause(r.Context())
	defer cut(nil)
	up, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		e.failUp(w, r, c, "bad_request", err, start)
		return
	}
	for k, vs := range r.Header {
		if !dropRequestHeaders[k] {
			up.Header[k] = vs
		}
	}
	auth(up.Header)
	res, err := e.client.Do(up)
	if err != nil {
		e.failUp(w, r, c, "network", err, start)
		return
	}
	defer res.Body.Close()
	for k, vs := range res.Header {
		if !dropResponseHeaders[k] {
			w.Header()[k] = vs
		}
	}
	w.WriteHeader(res.StatusCode)
	if res.StatusCode != http.StatusOK {
		e.relayError(w, r, c, res, start)
		return
	}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		e.relayStream(w, r, c, res.Body, tap, start, ctx, cut)
		return
	}
	raw, err := io.ReadAll(res.Body)
	_, _ = w.Write(e.redactAnswer(raw))
	if err == nil {
		tap.whole(raw)
	}
	e.finish(r, c, tap, err, start)
}

// relayStream copies an SSE answer chunk by chunk, flushing each, and records it at the end. A
// stream that sends nothing for the idle timeout is cut (cut cancels ctx, the upstream call's)
// as exo's own providers cut one: recorded as failed, and the agent told so in an error event
// of its wire.
func (e *Endpoint) relayStream(w http.ResponseWriter, r *http.Request, c *modelCall, body io.Reader, tap streamTap, start time.Time, ctx context.Context, cut context.CancelCauseFunc) {
	fl, _ := w.(http.Flusher)
	sp := &sseSplitter{onEvent: tap.event}
	red := e.answerRedactor()
	buf := make([]byte, 32<<10)
	var readErr error
	watch := time.AfterFunc(e.idle, func() { cut(fmt.Errorf("%w: nothing came for %s", errStalled, e.idle)) })
	defer watch.Stop()
	for {
		watch.Reset(e.idle)
		n, err := body.Read(buf)
		out := buf[:n]
		if red != nil {
			out = red.write(out)
			if err != nil {
				out = append(out, red.end()...)
			}
		}
		sp.Write(buf[:n])
		if len(out) > 0 {
			if _, werr := w.Write(out); werr != nil {
				e.finish(r, c, tap, nil, start) // the agent went away: recorded only if the answer was whole
				return
			}
			if fl != nil {
				fl.Flush()
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
	}
	watch.Stop()
	if cause := context.Cause(ctx); errors.Is(cause, errStalled) && r.Context().Err() == nil {
		readErr = cause // exo cut it, the agent is still there: it is told why
		if _, err := w.Write(tap.errorEvent("exo: " + cause.Error())); err == nil && fl != nil {
			fl.Flush()
		}
	}
	ended := time.Now()
	e.finish(r, c, tap, readErr, start)
	e.log.overhead(time.Since(ended))
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

// relayError copies an error answer and records it as a failed call.
func (e *Endpoint) relayError(w http.ResponseWriter, r *http.Request, c *modelCall, res *http.Response, start time.Time) {
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	_, _ = w.Write(e.redactAnswer(raw))
	if r.Context().Err() != nil {
		c.abandoned(time.Since(start))
		return
	}
	kind, retry := statusKind(res.StatusCode)
	msg := fmt.Sprintf("HTTP %d from %s", res.StatusCode, e.up.Spec.Name)
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
