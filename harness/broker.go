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
	// Clients, when set, is how many clients watch each session (published by the daemon when
	// it changes; Session is empty).
	Clients map[string]int
}

// broker fans notices out to subscribers, each with its own buffered channel. A slow subscriber
// never blocks publishers: it misses notices and is told so with Lagged.
type broker struct {
	mu   sync.Mutex
	subs map[chan Notice]*subState
}

type subState struct{ lagged bool }

// subscribe registers a subscriber with a buffer of n notices.
func (b *broker) subscribe(n int) chan Notice {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs == nil {
		b.subs = map[chan Notice]*subState{}
	}
	ch := make(chan Notice, n)
	b.subs[ch] = &subState{}
	return ch
}

// unsubscribe removes and closes a subscriber's channel.
func (b *broker) unsubscribe(ch chan Notice) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.subs[ch]; ok {
		delete(b.subs, ch)
		close(ch)
	}
}

// publish delivers n to every subscriber that has room.
func (b *broker) publish(n Notice) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch, st := range b.subs {
		m := n
		m.Lagged = st.lagged
		select {
		case ch <- m:
			st.lagged = false
		default:
			st.lagged = true
		}
	}
}

// close ends every subscription.
func (b *broker) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		close(ch)
	}
	b.subs = nil
}
