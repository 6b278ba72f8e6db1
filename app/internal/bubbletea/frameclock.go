package tea

import "time"

// This file is exo's patch (see PATCH.md): the renderer's frame clock runs
// only while there is something to draw.

// frameClock is the renderer's frame ticker: a [time.Ticker], or a test's
// fake.
type frameClock interface {
	C() <-chan time.Time
	Reset(d time.Duration)
	Stop()
}

// tickerClock is a frameClock on a [time.Ticker].
type tickerClock struct{ t *time.Ticker }

func (c tickerClock) C() <-chan time.Time   { return c.t.C }
func (c tickerClock) Reset(d time.Duration) { c.t.Reset(d) }
func (c tickerClock) Stop()                 { c.t.Stop() }

// frameClock returns a running frame clock ticking every d.
func (p *Program) frameClock(d time.Duration) frameClock {
	if p.newFrameClock != nil {
		return p.newFrameClock(d)
	}
	return tickerClock{time.NewTicker(d)}
}

// wakeRenderer tells the renderer there is something new to draw. The event
// loop calls it (through render) after every message it handles, so output
// queued by execute or the renderer's own methods (insertAbove, resize, ...)
// while handling one is drawn too. A stopped frame clock starts again.
func (p *Program) wakeRenderer() {
	p.renderPending.Store(true)
	select {
	case p.renderWake <- struct{}{}:
	default: // a wake is already queued
	}
}

// stepped reports a step of the renderer's loop to a test: "wake" (a frame
// drawn at once and the clock started), "tick" (a frame drawn) or "idle" (a
// tick found nothing new and stopped the clock).
func (p *Program) stepped(step string) {
	if p.rendererStep != nil {
		p.rendererStep(step)
	}
}
