package provider

import (
	"context"
	"errors"
	"time"
)

// Reliable wraps a provider with a retry policy and a circuit breaker.
type Reliable struct {
	inner   Provider
	policy  RetryPolicy
	breaker *Breaker
}

// NewReliable wraps p. A nil breaker gets the defaults (5 failures, 30s).
func NewReliable(p Provider, policy RetryPolicy, breaker *Breaker) *Reliable {
	if breaker == nil {
		breaker = &Breaker{}
	}
	return &Reliable{inner: p, policy: policy.withDefaults(), breaker: breaker}
}

// Name returns the wrapped provider's name.
func (r *Reliable) Name() string { return r.inner.Name() }

// Breaker returns the circuit breaker, for status displays.
func (r *Reliable) Breaker() *Breaker { return r.breaker }

// Stream calls the wrapped provider, retrying failures that happened before
// any delta was delivered and honouring Retry-After.
func (r *Reliable) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error) {
	if ok, wait := r.breaker.Allow(); !ok {
		return Response{}, &Error{Provider: r.Name(), Kind: ErrCircuitOpen, RetryAfter: wait}
	}
	resp, err := r.attempts(ctx, req, onDelta)
	r.record(err)
	return resp, err
}

// attempts runs the retry loop.
func (r *Reliable) attempts(ctx context.Context, req Request, onDelta func(Delta)) (Response, error) {
	for attempt := 1; ; attempt++ {
		delivered := false
		resp, err := r.inner.Stream(ctx, req, func(d Delta) {
			delivered = true
			if onDelta != nil {
				onDelta(d)
			}
		})
		if err == nil {
			return resp, nil
		}
		wait, retry := r.next(err, attempt, delivered)
		if !retry {
			return Response{}, err
		}
		if r.policy.OnRetry != nil {
			r.policy.OnRetry(attempt, wait, err)
		}
		if serr := r.policy.Sleep(ctx, wait); serr != nil {
			return Response{}, err
		}
	}
}

// next decides whether to retry after a failed attempt, and after how long.
func (r *Reliable) next(err error, attempt int, delivered bool) (time.Duration, bool) {
	var pe *Error
	if delivered || attempt >= r.policy.MaxAttempts || !errors.As(err, &pe) || !pe.Retryable() {
		return 0, false
	}
	if pe.RetryAfter > r.policy.MaxRetryAfter {
		return 0, false
	}
	return r.policy.Delay(attempt, pe.RetryAfter), true
}

// record tells the breaker how the call went.
func (r *Reliable) record(err error) {
	var pe *Error
	switch {
	case err == nil:
		r.breaker.Success()
	case errors.As(err, &pe) && (pe.Retryable() || errors.Is(err, ErrUnreachable)):
		r.breaker.Failure()
	default:
		r.breaker.Release()
	}
}
