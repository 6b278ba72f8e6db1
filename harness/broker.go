package harness

import (
	"sync"

	"exo/store"
)

// Notice is what subscribers receive: committed events of a session, or a live delta.
type Notice struct {
	Session string
	Events  []store.Event
	// Delta is streaming text of a model answer in progress (not stored event by event).
	Delta string
	// Reasoning is streaming reasoning of a model answer in progress, shown as "thinking".
	Reasoning string
	// Output is live sandbox output (already sanitised for display).
	Output []byte
	// Lagged is set on the first notice after this subscriber missed some: resync from the log.
	Lagged bool
	// Turn tells that a turn started or ended on the session (published by whoever runs turns).
	Turn *TurnNotice
	// Peer, when set, names the daemon that runs the session elsewhere on a shared store: the
	// notice reports what that daemon did (see WatchPeers); nothing here runs it.
	Peer string
	// Clients, when set, is how many clients watch each session (published by the daemon when
	// it changes; Session is empty).
	Clients map[string]int
}

// maxQueuedBytes is how much streamed text, output and events a subscriber may fall behind
// by before its stream and event notices are dropped (it is then told with Lagged and reads
// the committed events from the log). Turn and Clients notices are never dropped.
const maxQueuedBytes = 64 << 20

// broker fans notices out to subscribers. A publisher never blocks: each subscriber has a
// queue in which a consumer that falls behind finds consecutive streamed pieces (and
// consecutive committed events) of a session merged, so a slow reader (a client on a loaded
// machine, a terminal) loses no streamed text; only past maxQueuedBytes does it miss notices,
// and then it is told so with Lagged.
type broker struct {
	mu   sync.Mutex
	subs map[chan Notice]*subscriber
}

// subscriber is one subscription: the queue publishers append to and the pump that moves it
// into the channel the consumer reads.
type subscriber struct {
	ch   chan Notice
	wake chan struct{} // a notice was queued (capacity 1)
	done chan struct{} // closed by unsubscribe: the pump closes ch and stops

	mu     sync.Mutex
	queue  []Notice
	bytes  int
	lagged bool // notices were dropped since the last queued one
}

// subscribe registers a subscriber whose channel buffers n notices.
func (b *broker) subscribe(n int) chan Notice {
	s := &subscriber{ch: make(chan Notice, n), wake: make(chan struct{}, 1), done: make(chan struct{})}
	b.mu.Lock()
	if b.subs == nil {
		b.subs = map[chan Notice]*subscriber{}
	}
	b.subs[s.ch] = s
	b.mu.Unlock()
	go s.pump()
	return s.ch
}

// unsubscribe removes a subscriber; its channel is closed once the pump has stopped.
func (b *broker) unsubscribe(ch chan Notice) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.subs[ch]; ok {
		delete(b.subs, ch)
		close(s.done)
	}
}

// publish queues n for every subscriber.
func (b *broker) publish(n Notice) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.subs {
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
func kindOf(n *Notice) noticeKind {
	if n.Turn != nil || n.Clients != nil || n.Lagged {
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
func size(n *Notice) int {
	sz := len(n.Delta) + len(n.Reasoning) + len(n.Output)
	for _, e := range n.Events {
		sz += len(e.Data) + 128
	}
	return sz
}

// push queues n, merging it into the last queued notice when both are of one kind (answer
// text, reasoning, output or committed events) and of the same session.
func (s *subscriber) push(n Notice) {
	s.mu.Lock()
	kind, sz := kindOf(&n), size(&n)
	if kind != kindOther && s.bytes+sz > maxQueuedBytes {
		s.lagged = true
		s.mu.Unlock()
		return
	}
	if s.lagged {
		n.Lagged, s.lagged = true, false
		kind = kindOther // the first notice after a gap stands alone, so its Lagged is seen
	}
	if last := len(s.queue) - 1; last >= 0 && kind != kindOther && kindOf(&s.queue[last]) == kind && s.queue[last].Session == n.Session {
		q := &s.queue[last]
		q.Delta += n.Delta
		q.Reasoning += n.Reasoning
		if len(n.Output) > 0 {
			q.Output = append(q.Output, n.Output...)
		}
		if len(n.Events) > 0 {
			q.Events = append(q.Events, n.Events...)
		}
	} else {
		// Merging appends to these: never into the publisher's own slices.
		if kind == kindEvents {
			n.Events = append([]store.Event(nil), n.Events...)
		}
		if kind == kindOutput {
			n.Output = append([]byte(nil), n.Output...)
		}
		s.queue = append(s.queue, n)
	}
	s.bytes += sz
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// pump moves queued notices into the channel, in order, until unsubscribed.
func (s *subscriber) pump() {
	defer close(s.ch)
	for {
		select {
		case <-s.wake:
		case <-s.done:
			return
		}
		s.mu.Lock()
		batch := s.queue
		s.queue, s.bytes = nil, 0
		s.mu.Unlock()
		for _, n := range batch {
			select {
			case s.ch <- n:
			case <-s.done:
				return
			}
		}
	}
}
