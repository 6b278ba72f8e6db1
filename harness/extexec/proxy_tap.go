package extexec

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"exo/harness/provider"
)

// tapBody is an event stream's body on its way from the provider to the agent. It reads the
// provider's stream with exo's SSE reader (provider.SSEReader) through a tee: each event is
// folded into the tap, and the bytes read meanwhile are handed on, redacted. A stream that sends
// nothing for the idle timeout is cut (cut cancels the upstream call's ctx) as exo's own
// providers cut one: recorded as failed, and the agent told so in an error event of its wire. An
// upstream error ends the body as a clean end of stream (the agent sees an answer without its
// end, as from a provider that hung up), and is recorded; the recording happens at Close, once
// the proxy has sent the agent everything.
type tapBody struct {
	e     *Endpoint
	r     *http.Request
	c     *modelCall
	up    io.ReadCloser
	tee   io.Reader // up, copying what it reads into raw
	tap   streamTap
	start time.Time
	ctx   context.Context
	sse   *provider.SSEReader
	red   *sseRedactor
	watch *time.Timer

	raw     bytes.Buffer // what the provider sent during the current fill
	buf     []byte       // for reading on untapped, after a line over the reader's limit
	direct  bool
	pending []byte // redacted bytes not yet read by the proxy
	ended   time.Time
	readErr error
	eof     bool
	once    sync.Once
}

// newTapBody starts tapping up; cut ends the upstream call.
func (e *Endpoint) newTapBody(r *http.Request, c *modelCall, up io.ReadCloser, tap streamTap, start time.Time, ctx context.Context, cut context.CancelCauseFunc) *tapBody {
	b := &tapBody{e: e, r: r, c: c, up: up, tap: tap, start: start, ctx: ctx, red: e.answerRedactor()}
	b.tee = io.TeeReader(up, (*rawSink)(b))
	b.sse = provider.NewSSEReader(b.tee)
	idle := e.idle
	b.watch = time.AfterFunc(idle, func() { cut(fmt.Errorf("%w: nothing came for %s", errStalled, idle)) })
	return b
}

// rawSink receives what the provider sends, as it comes: each chunk restarts the idle watch.
type rawSink tapBody

// Write implements io.Writer.
func (s *rawSink) Write(p []byte) (int, error) {
	s.watch.Reset(s.e.idle)
	return s.raw.Write(p)
}

// Read implements io.Reader.
func (b *tapBody) Read(p []byte) (int, error) {
	for len(b.pending) == 0 && !b.eof {
		b.fill()
	}
	if len(b.pending) == 0 {
		return 0, io.EOF
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}

// fill reads on to the next event (or the end) and makes what came of it pending, redacted.
func (b *tapBody) fill() {
	b.raw.Reset()
	var err error
	switch {
	case b.direct:
		if b.buf == nil {
			b.buf = make([]byte, 32<<10)
		}
		_, err = b.tee.Read(b.buf)
	case b.sse.Next():
		b.tap.event(b.sse.Data())
	default:
		err = b.sse.Err()
		if errors.Is(err, bufio.ErrTooLong) {
			b.direct, err = true, nil // nothing more is tapped (the answer ends incomplete); the agent still gets it all
		} else if err == nil {
			err = io.EOF
		}
	}
	out := b.raw.Bytes() // not written again before pending is read
	if b.red != nil {
		out = b.red.write(out)
		if err != nil {
			out = append(out, b.red.end()...)
		}
	}
	b.pending = out
	if err == nil {
		return
	}
	b.eof = true
	b.watch.Stop()
	if !errors.Is(err, io.EOF) {
		b.readErr = err
	}
	if cause := context.Cause(b.ctx); errors.Is(cause, errStalled) && b.r.Context().Err() == nil {
		b.readErr = cause // exo cut it, the agent is still there: it is told why
		b.pending = append(b.pending, b.tap.errorEvent("exo: "+cause.Error())...)
	}
	b.ended = time.Now()
}

// Close implements io.Closer: the call is recorded (as whole, failed, or abandoned when the
// agent went away mid-answer; see finish).
func (b *tapBody) Close() error {
	b.once.Do(func() {
		b.watch.Stop()
		_ = b.up.Close()
		b.e.finish(b.r, b.c, b.tap, b.readErr, b.start)
		if !b.ended.IsZero() {
			b.e.log.overhead(time.Since(b.ended))
		}
	})
	return nil
}
