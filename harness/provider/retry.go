package provider

import (
	"context"
	"math/rand/v2"
	"time"
)

// RetryPolicy decides whether and when a failed call is sent again. Only
// calls that failed before any delta reached the caller are retried: a
// stream cut after output has been shown is reported, and the turn can be
// retried by the user.
type RetryPolicy struct {
	// MaxAttempts is the number of tries including the first (default 4).
	MaxAttempts int
	// BaseDelay is the first backoff step (default 500ms).
	BaseDelay time.Duration
	// MaxDelay caps one backoff wait (default 30s).
	MaxDelay time.Duration
	// MaxRetryAfter is the longest Retry-After honoured; a longer one
	// fails the call at once with the wait in its message (default 2m).
	MaxRetryAfter time.Duration
	// Sleep waits d or until ctx ends (default: a timer).
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a number in [0,1) (default math/rand).
	Jitter func() float64
	// OnRetry, if set, is told before each wait, so that the user can see
	// "retrying in 7s" (attempt is the number of the try that failed).
	OnRetry func(attempt int, wait time.Duration, err error)
}

// DefaultRetryPolicy returns the policy used when none is given.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{}.withDefaults()
}

// withDefaults fills unset fields.
func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 4
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = 500 * time.Millisecond
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 30 * time.Second
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = 2 * time.Minute
	}
	if p.Sleep == nil {
		p.Sleep = sleepCtx
	}
	if p.Jitter == nil {
		p.Jitter = rand.Float64
	}
	return p
}

// Delay returns the wait before try number attempt+1 (attempt counts from
// 1): the provider's Retry-After when it gave one, otherwise exponential
// backoff with "equal jitter" (half fixed, half random), capped at MaxDelay.
func (p RetryPolicy) Delay(attempt int, retryAfter time.Duration) time.Duration {
	p = p.withDefaults()
	if retryAfter > 0 {
		return retryAfter
	}
	d := p.BaseDelay << (attempt - 1)
	if d <= 0 || d > p.MaxDelay {
		d = p.MaxDelay
	}
	half := d / 2
	return half + time.Duration(p.Jitter()*float64(half))
}

// sleepCtx waits d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
