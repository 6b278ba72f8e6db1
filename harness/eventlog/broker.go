package eventlog

import (
	"sync"
	"time"

	"exo/harness/api"
)

// maxQueuedBytes is how much streamed text, output and events a subscriber may fall behind
// by (queued, or waiting in its channel) before its stream and event notices are dropped (it is
// then told with Lagged and reads the committed events from the log). Turn and Clients notices
// are never dropped. It bounds what a client that reads nothing costs the daemon: with 64 MiB,
// 20 such watchers while a command printed 40 MB held 1.1 GB.
const maxQueuedBytes = 4 << 20

// maxItemBytes is how large one merged notice grows before the next piece starts another, so
// the notices waiting in a subscriber's channel hold at most its capacity times this.
const maxItemBytes = 64 << 10

// broker fans notices out to subscribers. A publisher never blocks: each subscriber has a
// queue in which a consumer that falls behind finds consecutive streamed pieces (and
// consecutive committed events) of a session merged, so a slow reader (a client on a loaded
// machine, a terminal) loses no streamed text; only past maxQueuedBytes does it miss notices,
// and then it is told so with Lagged.
type broker struct {
	mu   sync.Mutex
	subs map[chan api.Notice]*subscriber
	// list holds subs in a slice, for publish (a map iteration per streamed piece and
	// subscriber showed in profiles); rebuilt when subscribers come and go.
	list []*subscriber
	// answers holds each session's streaming answer so far, for subscribers that come late.
	answers map[string]*answerSoFar
}

// relist rebuilds list from subs; b.mu must be held.
func (b *broker) relist() {
	b.list = b.list[:0]
	for _, s := range b.subs {
		b.list = append(b.list, s)
	}
}

// subscriber is one subscription: the queue publishers append to and the pump that moves it
// into the channel the consumer reads.
type subscriber struct {
	ch   chan api.Notice
	wake chan struct{} // a notice was queued (capacity 1)
	done chan struct{} // closed by unsubscribe: the pump closes ch and stops
	// noText drops notices of streamed text alone (answer, reasoning, sandbox output): the
	// subscriber follows committed events and changes only, and costs a stream nothing.
	noText bool

	mu     sync.Mutex
	queue  []queued
	bytes  int
	lagged bool // notices were dropped since the last queued one
}

// queued is a notice waiting in a subscriber's queue. The streamed text of a delta or
// reasoning notice grows in text (appending amortises, so merging many small pieces costs
// their length, not its square) and goes into the notice when it is delivered.
type queued struct {
	n    api.Notice
	kind noticeKind
	// size is the bytes counted for it in the subscriber's total, given back when delivered.
	size int
	text []byte
}

// notice returns the queued notice with its merged text.
func (q *queued) notice() api.Notice {
	switch q.kind {
	case kindDelta:
		q.n.Delta = string(q.text)
	case kindReasoning:
		q.n.Reasoning = string(q.text)
	}
	return q.n
}

// subscribe registers a subscriber whose channel buffers n notices. When session is given, its
// channel starts with the answer streaming there so far, if one is.
func (b *broker) subscribe(n int, noText bool, session string) chan api.Notice {
	s := &subscriber{ch: make(chan api.Notice, n), wake: make(chan struct{}, 1), done: make(chan struct{}), noText: noText}
	b.mu.Lock()
	if session != "" {
		b.replay(s, session)
	}
	if b.subs == nil {
		b.subs = map[chan api.Notice]*subscriber{}
	}
	b.subs[s.ch] = s
	b.relist()
	b.mu.Unlock()
	go s.pump()
	return s.ch
}

// unsubscribe removes a subscriber; its channel is closed once the pump has stopped.
func (b *broker) unsubscribe(ch chan api.Notice) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.subs[ch]; ok {
		delete(b.subs, ch)
		b.relist()
		close(s.done)
	}
}

// publish queues n for every subscriber.
func (b *broker) publish(n api.Notice) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.keep(&n)
	for _, s := range b.list {
		s.push(n)
	}
}

// close ends every subscription.
func (b *broker) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch, s := range b.subs {
		delete(b.subs, ch)
		close(s.done)
	}
	b.list, b.answers = nil, nil
}

// noticeKind says how a queued notice may be merged with the next one.
type noticeKind int

const (
	kindOther     noticeKind = iota // a turn, clients or mixed notice: delivered as it is
	kindDelta                       // streamed answer text only
	kindReasoning                   // streamed reasoning only
	kindOutput                      // live sandbox output only
	kindEvents                      // committed events only
)

// kindOf classifies n. Only notices of one kind merge, so answer text, reasoning, output and
// events keep their order relative to each other.
func kindOf(n *api.Notice) noticeKind {
	if n.Turn != nil || n.Clients != nil || n.Lagged || n.SoFar {
		return kindOther
	}
	kind, parts := kindOther, 0
	if n.Delta != "" {
		kind, parts = kindDelta, parts+1
	}
	if n.Reasoning != "" {
		kind, parts = kindReasoning, parts+1
	}
	if len(n.Output) > 0 {
		kind, parts = kindOutput, parts+1
	}
	if len(n.Events) > 0 {
		kind, parts = kindEvents, parts+1
	}
	if parts != 1 {
		return kindOther
	}
	return kind
}

// size is roughly how many bytes n holds.
func size(n *api.Notice) int {
	sz := len(n.Delta) + len(n.Reasoning) + len(n.Output)
	for _, e := range n.Events {
		sz += len(e.Data) + 128
	}
	return sz
}

// push queues n, merging it into the last queued notice when both are of one kind (answer
// text, reasoning, output or committed events) and of the same session.
func (s *subscriber) push(n api.Notice) {
	kind, sz := kindOf(&n), size(&n)
	if s.noText && (kind == kindDelta || kind == kindReasoning || kind == kindOutput) {
		return // streamed text for a subscriber that only follows events and changes
	}
	s.mu.Lock()
	if kind != kindOther && s.bytes+sz > maxQueuedBytes {
		s.lagged = true
		s.mu.Unlock()
		return
	}
	if s.lagged {
		n.Lagged, s.lagged = true, false
		kind = kindOther // the first notice after a gap stands alone, so its Lagged is seen
	}
	if last := len(s.queue) - 1; last >= 0 && kind != kindOther && s.queue[last].kind == kind && s.queue[last].n.Session == n.Session &&
		s.queue[last].size+sz <= maxItemBytes {
		q := &s.queue[last]
		q.size += sz
		q.text = append(append(q.text, n.Delta...), n.Reasoning...)
		if len(n.Output) > 0 {
			q.n.Output = append(q.n.Output, n.Output...)
		}
		if len(n.Events) > 0 {
			q.n.Events = append(q.n.Events, n.Events...)
		}
	} else {
		q := queued{n: n, kind: kind, size: sz}
		// Merging appends to these: never into the publisher's own slices.
		switch kind {
		case kindEvents:
			q.n.Events = append([]api.Event(nil), n.Events...)
		case kindOutput:
			q.n.Output = append([]byte(nil), n.Output...)
		case kindDelta, kindReasoning:
			q.text = append(append(make([]byte, 0, 64), n.Delta...), n.Reasoning...)
			q.n.Delta, q.n.Reasoning = "", ""
		}
		s.queue = append(s.queue, q)
	}
	s.bytes += sz
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// textHold is how long a subscriber's pump waits after delivering streamed text before it
// delivers more; the pieces that come meanwhile are merged into one notice. A stream of
// one-character deltas then wakes the consumer a few hundred times a second instead of once per
// delta: each wake is a handoff between goroutines (and often between threads), which cost the
// daemon more CPU per delta than anything but decoding the chunk. Consumers show streamed text
// at a screen's pace (the daemon's stream writer sends at most every 8 ms), so the wait is not
// seen, and a publisher never waits for it.
const textHold = 2 * time.Millisecond

// pump moves queued notices into the channel, in order, until unsubscribed.
func (s *subscriber) pump() {
	defer close(s.ch)
	var hold *time.Timer
	for {
		select {
		case <-s.wake:
		case <-s.done:
			return
		}
		s.mu.Lock()
		batch := s.queue
		s.queue = nil
		s.mu.Unlock()
		text := false
		for i := range batch {
			switch batch[i].kind {
			case kindDelta, kindReasoning, kindOutput:
				text = true
			}
			select {
			case s.ch <- batch[i].notice():
				s.mu.Lock()
				s.bytes -= batch[i].size // counted until the consumer's channel took it
				s.mu.Unlock()
			case <-s.done:
				return
			}
		}
		if text { // a stream is under way: let its next pieces gather
			if hold == nil {
				hold = time.NewTimer(textHold)
			} else {
				hold.Reset(textHold)
			}
			select {
			case <-hold.C:
			case <-s.done:
				hold.Stop()
				return
			}
		}
	}
}
