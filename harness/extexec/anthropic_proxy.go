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
)

// maxRequestBytes bounds a model request body.
const maxRequestBytes = 64 << 20

// messagesHead is what the endpoint reads of a Messages request.
type messagesHead struct {
	Model    string            `json:"model"`
	Messages []json.RawMessage `json:"messages"`
}

// messages serves POST /v1/messages: it records the call, forwards it and records the answer.
func (e *Endpoint) messages(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes+1))
	arrived := time.Now() // exo's own time starts once the agent has sent its request
	if err != nil || len(body) > maxRequestBytes {
		writeAPIError(w, http.StatusBadRequest, "invalid_request_error", "exo: request body unreadable or over 64 MiB")
		return
	}
	var head messagesHead
	if err := json.Unmarshal(body, &head); err != nil {
		writeAPIError(w, http.StatusBadRequest, "invalid_request_error", "exo: request body is not JSON: "+err.Error())
		return
	}
	if head.Model != e.up.Spec.ModelID {
		body = withModel(body, e.up.Spec.ModelID)
	}
	e.log.requested(len(head.Messages))
	if !e.up.PassThrough() {
		e.translate(w, r, body, arrived)
		return
	}
	e.forwardMessages(w, r, body, arrived)
}

// withModel returns body with its model replaced (the agent may name another model for side
// calls; exo serves the registered one).
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

// forwardMessages sends the call to the provider with the sealed key and streams the answer back,
// folding it into the recorded answer as it passes.
func (e *Endpoint) forwardMessages(w http.ResponseWriter, r *http.Request, body []byte, arrived time.Time) {
	start := time.Now()
	e.log.overhead(start.Sub(arrived))
	up, err := http.NewRequestWithContext(r.Context(), http.MethodPost, e.up.BaseURL+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		e.failUp(w, r, "bad_request", err, start)
		return
	}
	for k, vs := range r.Header {
		if !dropRequestHeaders[k] {
			up.Header[k] = vs
		}
	}
	if e.up.key != "" {
		up.Header.Set("X-Api-Key", e.up.key)
	}
	res, err := e.client.Do(up)
	if err != nil {
		e.failUp(w, r, "network", err, start)
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
		e.relayError(w, r, res, start)
		return
	}
	tap := newAnthropicTap(start)
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		e.relayStream(w, r, res.Body, tap, start)
		return
	}
	e.relayJSON(w, r, res.Body, tap, start)
}

// relayStream copies an SSE answer chunk by chunk, flushing each, and records it at the end.
func (e *Endpoint) relayStream(w http.ResponseWriter, r *http.Request, body io.Reader, tap *anthropicTap, start time.Time) {
	fl, _ := w.(http.Flusher)
	sp := &sseSplitter{onEvent: tap.event}
	buf := make([]byte, 32<<10)
	var readErr error
	for {
		n, err := body.Read(buf)
		if n > 0 {
			sp.Write(buf[:n])
			if _, werr := w.Write(buf[:n]); werr != nil {
				e.log.abandoned(time.Since(start))
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
	ended := time.Now()
	e.finish(r, tap, readErr, start)
	e.log.overhead(time.Since(ended))
}

// relayJSON copies a non-streamed answer and records it.
func (e *Endpoint) relayJSON(w http.ResponseWriter, r *http.Request, body io.Reader, tap *anthropicTap, start time.Time) {
	raw, err := io.ReadAll(body)
	_, _ = w.Write(raw)
	if err == nil {
		tap.message(raw)
	}
	e.finish(r, tap, err, start)
}

// finish records the answer, a failure, or nothing when the agent went away (it interrupted).
func (e *Endpoint) finish(r *http.Request, tap *anthropicTap, readErr error, start time.Time) {
	took := time.Since(start)
	switch {
	case r.Context().Err() != nil:
		e.log.abandoned(took)
	case tap.errMsg != "":
		e.log.failed(errKind(tap.errKind), tap.errMsg, true, took)
	case readErr != nil || !tap.done:
		msg := "the answer stream ended before message_stop"
		if readErr != nil {
			msg += ": " + readErr.Error()
		}
		e.log.failed("stream_cut", msg, true, took)
	default:
		e.log.completed(tap.answer(took))
	}
}

// relayError copies an error answer and records it as a failed call.
func (e *Endpoint) relayError(w http.ResponseWriter, r *http.Request, res *http.Response, start time.Time) {
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	_, _ = w.Write(raw)
	if r.Context().Err() != nil {
		e.log.abandoned(time.Since(start))
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
	e.log.failed(kind, msg, retry, time.Since(start))
}

// failUp answers a call that could not reach the provider and records it.
func (e *Endpoint) failUp(w http.ResponseWriter, r *http.Request, kind string, err error, start time.Time) {
	if r.Context().Err() != nil || errors.Is(err, context.Canceled) {
		e.log.abandoned(time.Since(start))
		return
	}
	msg := fmt.Sprintf("exo could not reach %s: %v", e.up.Spec.Name, err)
	e.log.failed(kind, msg, true, time.Since(start))
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

// errKind maps an Anthropic stream error type to exo's failure kinds.
func errKind(t string) string {
	switch t {
	case "overloaded_error":
		return "overloaded"
	case "rate_limit_error":
		return "rate_limited"
	case "authentication_error", "permission_error":
		return "auth"
	case "invalid_request_error":
		return "bad_request"
	}
	return "server"
}
