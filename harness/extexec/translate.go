package extexec

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"exo/harness"
	"exo/harness/provider"
)

// translate serves a Messages call through exo's own provider for a registered model of another
// kind (OpenAI, an OpenAI-compatible server, the scripted model): the agent gets the answer in
// the Messages wire format, streamed as the provider streams it.
func (e *Endpoint) translate(w http.ResponseWriter, r *http.Request, c *modelCall, body []byte, arrived time.Time) {
	var a anthropicRequest
	if err := json.Unmarshal(body, &a); err != nil {
		c.failed("bad_request", "exo: unreadable Messages request: "+err.Error(), false, 0)
		writeAPIError(w, http.StatusBadRequest, "invalid_request_error", "exo: "+err.Error())
		return
	}
	req, err := a.toProvider(e.up.Spec.ModelID, e.up.Spec.MaxOutput)
	if err != nil {
		c.failed("bad_request", "exo: "+err.Error(), false, 0)
		writeAPIError(w, http.StatusBadRequest, "invalid_request_error", "exo: "+err.Error())
		return
	}
	start := time.Now()
	e.log.overhead(start.Sub(arrived))
	w, endRedaction := e.redacting(w)
	defer endRedaction()
	enc := newAnthropicEncoder(w, "msg_exo_"+randomHex(8), e.up.Spec.ModelID, &a)
	onDelta := enc.delta
	if !a.Stream {
		onDelta, enc.whole = nil, true
	}
	resp, err := e.up.Provider.Stream(r.Context(), req, onDelta)
	took := time.Since(start)
	switch {
	case r.Context().Err() != nil:
		c.abandoned(took)
	case err != nil:
		e.providerFailed(w, c, enc, err, took)
	default:
		ended := time.Now()
		enc.finish(resp)
		a := Answer{Text: resp.Text, Reasoning: resp.Reasoning, Usage: resp.Usage, Stop: string(resp.StopReason), TTFT: resp.TTFT, Took: took}
		for _, tc := range resp.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, harness.ToolCall{ID: tc.ID, Name: enc.req.offered(tc.Name), Arguments: rawJSON(tc.Arguments)})
		}
		c.completed(a)
		e.log.overhead(time.Since(ended))
	}
}

// redacting returns w redacting the answer on its way to the agent (see sseRedactor) and what
// sends what it holds at the end.
func (e *Endpoint) redacting(w http.ResponseWriter) (http.ResponseWriter, func()) {
	red := e.answerRedactor()
	if red == nil {
		return w, func() {}
	}
	rw := &redactingWriter{ResponseWriter: w, r: red}
	return rw, rw.end
}

// providerFailed records a failed call and tells the agent: an HTTP error it retries when
// nothing was streamed yet, else an error event in the stream.
func (e *Endpoint) providerFailed(w http.ResponseWriter, c *modelCall, enc *anthropicEncoder, err error, took time.Duration) {
	kind, retry, status, typ := "error", false, http.StatusInternalServerError, "api_error"
	var pe *provider.Error
	if errors.As(err, &pe) {
		kind, retry = pe.Kind.Error(), pe.Retryable()
		switch {
		case errors.Is(pe.Kind, provider.ErrRateLimited):
			status, typ = http.StatusTooManyRequests, "rate_limit_error"
		case errors.Is(pe.Kind, provider.ErrOverloaded):
			status, typ = 529, "overloaded_error"
		case errors.Is(pe.Kind, provider.ErrAuth):
			status, typ = http.StatusUnauthorized, "authentication_error"
		case errors.Is(pe.Kind, provider.ErrBadRequest):
			status, typ = http.StatusBadRequest, "invalid_request_error"
		}
	}
	msg := e.log.h.Redact(fmt.Sprintf("%s: %v", e.up.Spec.Name, err))
	c.failed(kindName(kind), msg, retry, took)
	if !enc.started {
		writeAPIError(w, status, typ, msg)
		return
	}
	enc.event("error", map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}

// kindName turns an error kind's message into a failure kind ("rate limited" → rate_limited).
func kindName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == ' ' {
			b[i] = '_'
		}
	}
	return string(b)
}

// translateResponses serves a Responses call through exo's own provider for a registered model of
// another kind (Anthropic, an OpenAI-compatible server, the scripted model).
func (e *Endpoint) translateResponses(w http.ResponseWriter, r *http.Request, c *modelCall, body []byte, arrived time.Time) {
	var q responsesRequest
	if err := json.Unmarshal(body, &q); err != nil {
		c.failed("bad_request", "exo: unreadable Responses request: "+err.Error(), false, 0)
		writeOpenAIError(w, http.StatusBadRequest, "exo: "+err.Error())
		return
	}
	req, err := q.toProvider(e.up.Spec.ModelID, e.up.Spec.MaxOutput)
	if err != nil {
		c.failed("bad_request", "exo: "+err.Error(), false, 0)
		writeOpenAIError(w, http.StatusBadRequest, "exo: "+err.Error())
		return
	}
	start := time.Now()
	e.log.overhead(start.Sub(arrived))
	w, endRedaction := e.redacting(w)
	defer endRedaction()
	enc := newResponsesEncoder(w, "resp_exo_"+randomHex(8), e.up.Spec.ModelID)
	resp, err := e.up.Provider.Stream(r.Context(), req, enc.delta)
	took := time.Since(start)
	switch {
	case r.Context().Err() != nil:
		c.abandoned(took)
	case err != nil:
		kind, retry, status := providerKind(err)
		msg := e.log.h.Redact(fmt.Sprintf("%s: %v", e.up.Spec.Name, err))
		c.failed(kindName(kind), msg, retry, took)
		if !enc.started {
			writeOpenAIError(w, status, msg)
			return
		}
		enc.fail(kindName(kind), msg)
	default:
		ended := time.Now()
		enc.finish(resp)
		a := Answer{Text: resp.Text, Reasoning: resp.Reasoning, Usage: resp.Usage, Stop: string(resp.StopReason), TTFT: resp.TTFT, Took: took}
		for _, tc := range resp.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, harness.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: rawJSON(tc.Arguments)})
		}
		c.completed(a)
		e.log.overhead(time.Since(ended))
	}
}

// providerKind classifies a provider error: its kind, whether it is retryable, and the HTTP
// status that tells an agent so.
func providerKind(err error) (string, bool, int) {
	var pe *provider.Error
	if !errors.As(err, &pe) {
		return "error", false, http.StatusInternalServerError
	}
	status := http.StatusInternalServerError
	switch {
	case errors.Is(pe.Kind, provider.ErrRateLimited):
		status = http.StatusTooManyRequests
	case errors.Is(pe.Kind, provider.ErrOverloaded):
		status = http.StatusServiceUnavailable
	case errors.Is(pe.Kind, provider.ErrAuth):
		status = http.StatusUnauthorized
	case errors.Is(pe.Kind, provider.ErrBadRequest):
		status = http.StatusBadRequest
	}
	return pe.Kind.Error(), pe.Retryable(), status
}

// writeOpenAIError answers in OpenAI's error shape.
func writeOpenAIError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": nil}})
	_, _ = w.Write(b)
}
