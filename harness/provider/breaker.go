package provider

import (
	"sync"
	"time"
)

// Breaker is a circuit breaker for one provider. It opens after Threshold
// consecutive failed calls, refuses calls for Cooldown, then half-opens: one
// trial call goes through, and its outcome closes or reopens the circuit.
type Breaker struct {
	// Threshold is the consecutive failures that open the circuit (default 5).
	Threshold int
	// Cooldown is how long the circuit stays open (default 30s).
	Cooldown time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time

	mu       sync.Mutex
	failures int
	openedAt time.Time
	open     bool
	trial    bool
}

// BreakerState names the breaker's state.
type BreakerState string

// The three states of a breaker.
const (
	BreakerClosed   BreakerState = "closed"
	BreakerOpen     BreakerState = "open"
	BreakerHalfOpen BreakerState = "half-open"
)

// NewBreaker returns a breaker with the given threshold and cool-down.
func NewBreaker(threshold int, cooldown time.Duration) *Breaker {
	return &Breaker{Threshold: threshold, Cooldown: cooldown}
}

// now reads the clock.
func (b *Breaker) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

// settings returns the threshold and cool-down with defaults applied.
func (b *Breaker) settings() (int, time.Duration) {
	n, d := b.Threshold, b.Cooldown
	if n <= 0 {
		n = 5
	}
	if d <= 0 {
		d = 30 * time.Second
	}
	return n, d
}

// State reports the breaker's state now.
func (b *Breaker) State() BreakerState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stateLocked()
}

func (b *Breaker) stateLocked() BreakerState {
	if !b.open {
		return BreakerClosed
	}
	_, cool := b.settings()
	if b.now().Sub(b.openedAt) >= cool {
		return BreakerHalfOpen
	}
	return BreakerOpen
}

// Allow reports whether a call may go ahead; when it may not, it returns how
// long until the circuit half-opens. In the half-open state only one trial
// call is allowed at a time.
func (b *Breaker) Allow() (bool, time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.stateLocked() {
	case BreakerClosed:
		return true, 0
	case BreakerHalfOpen:
		if b.trial {
			return false, 0
		}
		b.trial = true
		return true, 0
	}
	_, cool := b.settings()
	return false, cool - b.now().Sub(b.openedAt)
}

// Success records a successful call and closes the circuit.
func (b *Breaker) Success() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failures, b.open, b.trial = 0, false, false
}

// Failure records a failed call; it opens the circuit at the threshold, and
// reopens it when a half-open trial fails.
func (b *Breaker) Failure() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failures++
	n, _ := b.settings()
	if b.trial || b.failures >= n {
		b.open, b.openedAt, b.trial = true, b.now(), false
	}
}

// Release ends a call that neither succeeded nor failed on the provider's
// side (cancelled, or refused for a reason of the caller's own).
func (b *Breaker) Release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.trial = false
}
