package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
)

// classify turns an SDK, network or decoding error into an *Error (or the
// context's own error when the caller cancelled).
func classify(ctx context.Context, name string, err error, m *meter) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", name, ctx.Err())
	}
	var pe *Error
	if errors.As(err, &pe) {
		return err
	}
	if e := classifyOpenAI(name, err); e != nil {
		return e
	}
	if e := classifyAnthropic(name, err); e != nil {
		return e
	}
	return classifyTransport(name, err, m.n())
}

// classifyOpenAI maps the OpenAI SDK's API errors (HTTP status ≥ 400).
func classifyOpenAI(name string, err error) *Error {
	var ae *openai.Error
	if errors.As(err, &ae) {
		e := statusError(name, ae.StatusCode, ae.Response, err)
		e.Detail = firstNonEmpty(ae.Message, ae.Code)
		return e
	}
	return nil
}

// classifyAnthropic maps the Anthropic SDK's API errors (HTTP status ≥ 400),
// refined by the error type in the body (overloaded_error, ...).
func classifyAnthropic(name string, err error) *Error {
	var ae *anthropic.Error
	if !errors.As(err, &ae) {
		return nil
	}
	e := statusError(name, ae.StatusCode, ae.Response, err)
	switch ae.Type() {
	case "overloaded_error":
		e.Kind = ErrOverloaded
	case "rate_limit_error":
		e.Kind = ErrRateLimited
	case "api_error", "timeout_error":
		e.Kind = ErrServer
	case "authentication_error", "permission_error":
		e.Kind = ErrAuth
	}
	e.Detail = anthropicMessage(ae.RawJSON())
	return e
}

// anthropicMessage extracts error.message from an Anthropic error body.
func anthropicMessage(raw string) string {
	var env struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(raw), &env) != nil {
		return trim(raw)
	}
	return trim(firstNonEmpty(env.Error.Message, env.Error.Type))
}

// statusError builds an *Error from an HTTP status and its headers.
func statusError(name string, status int, res *http.Response, err error) *Error {
	e := &Error{Provider: name, Status: status, Err: err, Kind: kindForStatus(status)}
	if res != nil {
		e.RetryAfter = retryAfter(res.Header, time.Now())
	}
	return e
}

// kindForStatus maps an HTTP status to an error kind.
func kindForStatus(status int) error {
	switch {
	case status == http.StatusTooManyRequests:
		return ErrRateLimited
	case status == 529:
		return ErrOverloaded
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return ErrAuth
	case status >= 500:
		return ErrServer
	case status >= 400:
		return ErrBadRequest
	}
	return ErrServer
}

// classifyTransport maps decoding and network errors met on the wire.
func classifyTransport(name string, err error, n int64) *Error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return &Error{Provider: name, Kind: ErrMalformedStream, Bytes: n, Detail: trim(err.Error()), Err: err}
	}
	if n == 0 && isDialError(err) {
		return &Error{Provider: name, Kind: ErrUnreachable, Detail: trim(err.Error()), Err: err}
	}
	return &Error{Provider: name, Kind: ErrStreamCut, Bytes: n, Detail: cutCause(err), Err: err}
}

// isDialError reports whether err happened before any response arrived.
func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// cutCause names why a stream stopped, in a few words.
func cutCause(err error) string {
	switch {
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "connection closed"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, syscall.ETIMEDOUT):
		return "timed out"
	}
	return trim(err.Error())
}

// retryAfter reads Retry-After (seconds or an HTTP date) or OpenAI's
// retry-after-ms; zero when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms := h.Get("Retry-After-Ms"); ms != "" {
		if f, err := strconv.ParseFloat(ms, 64); err == nil && f >= 0 {
			return time.Duration(f * float64(time.Millisecond))
		}
	}
	return ParseRetryAfter(h.Get("Retry-After"), now)
}

// ParseRetryAfter reads a Retry-After value, delta-seconds or HTTP date,
// relative to now; it returns zero for an absent, past or unreadable value.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f < 0 {
			return 0
		}
		return time.Duration(f * float64(time.Second))
	}
	t, err := http.ParseTime(v)
	if err != nil || !t.After(now) {
		return 0
	}
	return t.Sub(now)
}

// firstNonEmpty returns the first non-empty string.
func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// trim shortens a detail message to one line of reasonable length.
func trim(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\n", " "))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
