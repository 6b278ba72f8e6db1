package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"
)

// classify turns an HTTP failure, network or decoding error into an *Error
// (or the context's own error when the caller cancelled). An HTTP error
// answer is read from what the transport captured, not from the SDK's error
// type, so that every body shape (nested, flat, a bare string, an array, a
// proxy's page) is understood the same way.
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
	if f := m.failure(); f != nil {
		return httpError(name, f, err)
	}
	return classifyTransport(name, err, m.n())
}

// httpError builds the *Error of an HTTP error answer: the kind from the
// provider's error type or code (insufficient_quota is not a rate limit),
// else from the status; the provider's message; the wait it asked for.
func httpError(name string, f *httpFailure, err error) *Error {
	e := &Error{Provider: name, Status: f.status, Err: err, Kind: kindForStatus(f.status)}
	ae, ok := parseAPIError(f.body)
	if ok {
		e.Kind, e.Type, e.Detail = ae.kind(e.Kind), ae.name(), trim(firstNonEmpty(ae.Message, ae.name()))
	} else {
		e.Detail = trim(string(f.body))
	}
	e.RetryAfter = retryHint(f.header, ae.Message, time.Now())
	if e.RetryAfter == 0 {
		e.RetryAfter = ae.RetryDelay
	}
	return e
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
