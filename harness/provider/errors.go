package provider

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinel errors; every failure is an *Error that matches one of them with
// errors.Is.
var (
	// ErrRateLimited means the provider answered 429 (rate or quota limit).
	ErrRateLimited = errors.New("rate limited")
	// ErrOverloaded means the provider is overloaded (Anthropic overloaded_error, 529).
	ErrOverloaded = errors.New("overloaded")
	// ErrServer means the provider failed with a 5xx status.
	ErrServer = errors.New("server error")
	// ErrQuota means the account's quota or credit is used up
	// (insufficient_quota, 402): sending again will not help.
	ErrQuota = errors.New("quota exhausted")
	// ErrAuth means the key was missing, wrong or not allowed (401/403).
	ErrAuth = errors.New("authentication failed")
	// ErrBadRequest means the provider refused the request as invalid (4xx).
	ErrBadRequest = errors.New("request rejected")
	// ErrStreamCut means the stream ended before the response was complete.
	ErrStreamCut = errors.New("stream cut")
	// ErrMalformedStream means the stream carried data that could not be decoded.
	ErrMalformedStream = errors.New("malformed stream")
	// ErrCircuitOpen means recent calls failed repeatedly and calls are paused.
	ErrCircuitOpen = errors.New("circuit open")
	// ErrUnreachable means the provider could not be reached at all.
	ErrUnreachable = errors.New("unreachable")
	// ErrBlocked means the provider's safety filters blocked the prompt (Gemini's
	// promptFeedback.blockReason): sending it again will not help.
	ErrBlocked = errors.New("blocked by the provider's filters")
	// ErrScript means a scripted model's file is wrong or has run out of turns.
	ErrScript = errors.New("script error")
)

// Error is a provider failure with what the user needs to act on it.
type Error struct {
	// Provider is the provider's name.
	Provider string
	// Kind is one of the sentinel errors.
	Kind error
	// Status is the HTTP status, when there was one.
	Status int
	// Type is the provider's own error type or code, e.g.
	// "overloaded_error" or "insufficient_quota".
	Type string
	// RetryAfter is the wait the provider asked for, if any.
	RetryAfter time.Duration
	// Bytes is how much of the stream arrived before a cut or bad chunk.
	Bytes int64
	// Detail is the provider's own message or the cause, short.
	Detail string
	// Err is the underlying error.
	Err error
}

// Error reads as one sentence, e.g. "anthropic: stream cut after 312 bytes
// (connection reset); the turn can be retried".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider + ": " + e.Kind.Error())
	switch {
	case errors.Is(e.Kind, ErrStreamCut) || errors.Is(e.Kind, ErrMalformedStream):
		fmt.Fprintf(&b, " after %d bytes", e.Bytes)
	case e.Status != 0:
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Detail != "" && e.Type != "" && !strings.Contains(e.Detail, e.Type) {
		b.WriteString(" (" + e.Type + ": " + e.Detail + ")")
	} else if d := firstNonEmpty(e.Detail, e.Type); d != "" {
		b.WriteString(" (" + d + ")")
	}
	b.WriteString("; " + e.advice())
	return b.String()
}

// advice is the action the user can take.
func (e *Error) advice() string {
	switch e.Kind {
	case ErrRateLimited:
		if e.RetryAfter > 0 {
			return fmt.Sprintf("retry after %s or check the plan's limits", e.RetryAfter.Round(time.Second))
		}
		return "wait and retry, or check the plan's limits"
	case ErrQuota:
		if e.RetryAfter > 0 {
			return fmt.Sprintf("the account's quota or credit is used up; check the plan and billing (the provider names a wait of %s; exo does not retry an exhausted quota)", e.RetryAfter.Round(time.Second))
		}
		return "the account's quota or credit is used up; check the plan and billing"
	case ErrAuth:
		return "check the key sealed for this model (exo secret set)"
	case ErrBadRequest:
		return "the request was refused; check the model id and options"
	case ErrCircuitOpen:
		if e.RetryAfter <= 0 {
			return "a trial call is under way; try again when it ends"
		}
		return fmt.Sprintf("calls resume in %s", e.RetryAfter.Round(time.Second))
	case ErrUnreachable:
		return "check the base URL and network"
	case ErrScript:
		return "fix the script file"
	case ErrBlocked:
		return "rephrase the request; the provider will not answer it as it stands"
	}
	return "the turn can be retried"
}

// Unwrap lets errors.Is match both the kind and the cause.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// Retryable reports whether the same request may succeed if sent again.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case ErrRateLimited, ErrOverloaded, ErrServer, ErrStreamCut, ErrMalformedStream, ErrUnreachable:
		return true
	}
	return false
}

// IsRetryable reports whether err is a provider error worth retrying.
func IsRetryable(err error) bool {
	var pe *Error
	return errors.As(err, &pe) && pe.Retryable()
}
