package extexec

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Pump is the one reader of an agent's newline-delimited JSON messages on its stdout, and the
// writer of exo's requests to it, for both stdio protocols exo speaks itself: Claude Code's
// stream-json control protocol (claude's conn) and JSON-RPC lines (Codex's app-server, RPC).
// One goroutine reads every line in order and hands it to the protocol's Read: a reply goes to
// the Call waiting for it (an unknown id, or a second reply, is dropped), a request from the
// agent is answered in its own goroutine under the running turn's context, and anything else is
// queued for the turn (N is what the turn takes, R what a reply carries). When stdout ends (the
// agent exited, was killed, or was stopped by Process for a line over maxLineBytes) every
// waiting Call gets a *GoneError and the requests still being answered are cancelled.
//
// exo keeps its own pump instead of the JSON-RPC connection of the ACP SDK
// (github.com/coder/acp-go-sdk, which exo's ACP executor uses) because:
//   - Claude Code's protocol is not JSON-RPC (control_request / control_response with
//     request_id, control_cancel_request, untyped stream lines), so one pump for both cannot be
//     the SDK's;
//   - the SDK serves a request in a goroutine as soon as it is read, while notifications wait in
//     a queue of their own, so an approval Codex sends right after an item/started could be
//     answered before that item is seen (exo's approvals read it; Read here sees lines in order);
//   - the SDK's reader stops at a 10 MiB line and closes the connection at 1,024 queued
//     notifications, where exo's bound is a 64 MiB line and a turn's deltas queue without end,
//     and it logs an unreadable line whole to slog's default logger (a secret's way into a log);
//   - it is no cheaper: on the same child and pipes (BenchmarkPumpRPC, sdk- cases; README's "The
//     agents' endpoint") a call costs it 8.1 KiB and 47 allocations against 2.2 KiB and 37 here,
//     a request it answers 11.3 KiB and 68 against 3.3 KiB and 55, 1,000 notifications 10,040
//     allocations against 9,039, in the same time within the noise.
type Pump[N, R any] struct {
	p     *Process
	read  func(line []byte) Inbound[N, R]
	agent string
	spent func(time.Duration)

	mu       sync.Mutex
	ctx      context.Context // the running turn's, for the agent's requests
	pending  map[string]chan R
	cancels  map[string]context.CancelFunc
	next     int
	queue    []N
	queued   int  // bytes of the lines behind queue
	flooded  bool // the agent was stopped for queuing more than maxQueuedBytes
	signal   chan struct{}
	closed   bool
	inflight sync.WaitGroup
}

// PumpOptions configure a Pump.
type PumpOptions[N, R any] struct {
	// Read classifies one line (called in order, by the reading goroutine only).
	Read func(line []byte) Inbound[N, R]
	// Agent names the agent in errors ("claude", "codex"); "the agent" when empty.
	Agent string
	// Spent, when set, is told how long each answer to the agent took (it waited that long).
	Spent func(time.Duration)
}

// InboundKind says what a line is.
type InboundKind int

// The kinds of line.
const (
	// Skip is a line the protocol does not read (not JSON: a stray print).
	Skip InboundKind = iota
	// Reply answers exo's request ID.
	Reply
	// Request is the agent's request ID, answered by Answer.
	Request
	// Notice is queued for the turn.
	Notice
	// Cancel withdraws the agent's request ID.
	Cancel
)

// Inbound is one line as a protocol reads it.
type Inbound[N, R any] struct {
	Kind InboundKind
	// ID is the request's key (Reply, Request, Cancel).
	ID string
	// Reply is what the waiting Call returns (Reply).
	Reply R
	// Notice is queued for the turn (Notice).
	Notice N
	// Answer computes the message sent back to the agent (Request); ctx ends with the turn, when
	// the agent cancels the request, or when the agent is gone.
	Answer func(ctx context.Context) any
}

// ErrAgentGone means the agent ended before answering (errors.Is holds for a *GoneError).
var ErrAgentGone = errors.New("the agent exited")

// GoneError is the error of a Call whose agent's output ended before the reply.
type GoneError struct {
	// Agent and What name the agent and the request ("codex", "turn/start").
	Agent, What string
	// Status is how the process ended ("exit status 1", "killed by signal killed"), when known.
	Status string
	// Why is the reason exo stopped it, if it did.
	Why string
}

// Error says who ended before answering what, and how.
func (e *GoneError) Error() string {
	s := e.Agent + " exited before answering " + e.What
	if e.Status != "" {
		s += " (" + e.Status + ")"
	}
	if e.Why != "" {
		s += ": " + e.Why
	}
	return s
}

// Is makes errors.Is(err, ErrAgentGone) hold.
func (e *GoneError) Is(target error) bool { return target == ErrAgentGone }

// NewPump starts reading p's lines (p.Lines: the pump is their only reader).
func NewPump[N, R any](p *Process, o PumpOptions[N, R]) *Pump[N, R] {
	c := &Pump[N, R]{p: p, read: o.Read, agent: o.Agent, spent: o.Spent, ctx: context.Background(),
		pending: map[string]chan R{}, cancels: map[string]context.CancelFunc{}, signal: make(chan struct{}, 1)}
	if c.agent == "" {
		c.agent = "the agent"
	}
	go c.run()
	return c
}

// run dispatches lines until stdout ends.
func (c *Pump[N, R]) run() {
	for line := range c.p.Lines() {
		in := c.read(line)
		switch in.Kind {
		case Reply:
			c.deliver(in.ID, in.Reply)
		case Request:
			c.serve(in.ID, in.Answer)
		case Notice:
			c.push(in.Notice, len(line))
		case Cancel:
			c.cancel(in.ID)
		}
	}
	c.mu.Lock()
	c.closed = true
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	for _, cancel := range c.cancels {
		cancel()
	}
	c.mu.Unlock()
	c.wake()
}

// maxQueuedBytes bounds the lines queued for a turn that nobody takes (an agent writing
// notifications between turns, or faster than a stuck turn reads them): past it exo stops the
// agent, saying why, rather than grow the daemon's memory without end. A turn takes its queue as
// it streams (a 160k-delta answer is about 32 MiB of lines in all), so only a runaway agent
// reaches four times the longest line exo accepts.
var maxQueuedBytes = 4 * maxLineBytes

// push queues a message of size bytes for the turn, or stops the agent once more than
// maxQueuedBytes wait (what was queued stays for the turn to take).
func (c *Pump[N, R]) push(n N, size int) {
	c.mu.Lock()
	if c.flooded {
		c.mu.Unlock()
		return
	}
	c.queue = append(c.queue, n)
	c.queued += size
	if c.queued > maxQueuedBytes {
		c.flooded = true
		c.mu.Unlock()
		c.p.StopFor(fmt.Sprintf("it wrote over %d MiB of messages that were not read; exo stopped it", maxQueuedBytes>>20))
		return
	}
	c.mu.Unlock()
	c.wake()
}

func (c *Pump[N, R]) wake() {
	select {
	case c.signal <- struct{}{}:
	default:
	}
}

// Take returns the queued messages; closed is true once stdout ended and nothing is left.
func (c *Pump[N, R]) Take() (msgs []N, closed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	msgs, c.queue, c.queued = c.queue, nil, 0
	return msgs, c.closed && len(msgs) == 0
}

// Ready is signalled when messages may be waiting (and once more when stdout ends).
func (c *Pump[N, R]) Ready() <-chan struct{} { return c.signal }

// SetContext sets the context the agent's requests are answered under (the running turn's).
func (c *Pump[N, R]) SetContext(ctx context.Context) {
	c.mu.Lock()
	c.ctx = ctx
	c.mu.Unlock()
}

// serve answers one of the agent's requests in its own goroutine.
func (c *Pump[N, R]) serve(id string, answer func(context.Context) any) {
	c.mu.Lock()
	ctx, cancel := context.WithCancel(c.ctx)
	c.cancels[id] = cancel
	c.mu.Unlock()
	start := time.Now()
	c.inflight.Add(1)
	go func() {
		defer c.inflight.Done()
		m := answer(ctx)
		c.mu.Lock()
		delete(c.cancels, id)
		c.mu.Unlock()
		cancel()
		_ = c.p.Send(m)
		if c.spent != nil {
			c.spent(time.Since(start))
		}
	}()
}

// cancel stops a request the agent no longer wants answered.
func (c *Pump[N, R]) cancel(id string) {
	c.mu.Lock()
	cancel := c.cancels[id]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// CancelAll stops every request still being answered (the agent is gone: nobody reads the
// answers).
func (c *Pump[N, R]) CancelAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cancel := range c.cancels {
		cancel()
	}
}

// WaitHandlers waits (up to timeout) for the agent's requests still being answered.
func (c *Pump[N, R]) WaitHandlers(timeout time.Duration) {
	done := make(chan struct{})
	go func() { c.inflight.Wait(); close(done) }()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// Send writes one message to the agent.
func (c *Pump[N, R]) Send(m any) error { return c.p.Send(m) }

// Call sends the request msg builds and waits for its reply: msg is given a number unique on
// this pump and returns the key the reply carries and the message. what names the request in
// errors. ctx or timeout end the wait (a reply after that is dropped); the agent's end gives a
// *GoneError.
func (c *Pump[N, R]) Call(ctx context.Context, what string, timeout time.Duration, msg func(n int) (key string, m any)) (R, error) {
	var zero R
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return zero, c.gone(what)
	}
	c.next++
	key, m := msg(c.next)
	ch := make(chan R, 1)
	c.pending[key] = ch
	c.mu.Unlock()
	if err := c.p.Send(m); err != nil {
		c.drop(key)
		return zero, fmt.Errorf("send %s to %s: %w", what, c.agent, err)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r, ok := <-ch:
		if !ok {
			return zero, c.gone(what)
		}
		return r, nil
	case <-ctx.Done():
		c.drop(key)
		return zero, ctx.Err()
	case <-timer.C:
		c.drop(key)
		return zero, fmt.Errorf("%s did not answer %s within %s", c.agent, what, timeout)
	}
}

// gone describes the agent's end to a Call: how its process ended, when it is reaped within a
// second of its output's end (its own children may hold its error output open longer).
func (c *Pump[N, R]) gone(what string) error {
	e := &GoneError{Agent: c.agent, What: what}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-c.p.Done():
		if code, sig := c.p.ExitStatus(); sig != "" {
			e.Status = "killed by signal " + sig
		} else if code != nil {
			e.Status = fmt.Sprintf("exit status %d", *code)
		}
	case <-t.C:
	}
	e.Why = c.p.StopReason()
	return e
}

func (c *Pump[N, R]) drop(key string) {
	c.mu.Lock()
	delete(c.pending, key)
	c.mu.Unlock()
}

// deliver hands a reply to its Call; a reply nobody waits for is dropped.
func (c *Pump[N, R]) deliver(key string, r R) {
	c.mu.Lock()
	ch := c.pending[key]
	delete(c.pending, key)
	c.mu.Unlock()
	if ch != nil {
		ch <- r
	}
}
