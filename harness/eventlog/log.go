package eventlog

import (
	"log/slog"
	"sync"

	"exo/harness/api"
	"exo/store"
)

// Log is the session event log: appends (with held records), the Session projection kept at
// each branch head with its checkpoints, and the notices subscribers are sent.
type Log struct {
	st   *store.Store
	opts Options

	mu     sync.Mutex
	states map[string]*api.SessionState // by branch, kept at the branch head (maxStates, states.go)
	// statesUsed is when each kept state was last used (a count of uses), for eviction.
	statesUsed map[string]uint64
	statesTick uint64
	// statesSize is what each kept state holds (stateBytes), statesBytes their sum.
	statesSize  map[string]int
	statesBytes int
	broker      broker
	// held is the records held for a session's next commit (see Hold).
	held holds
	// keepCheckpoints turns checkpoint pruning off (benchmarks measuring what it saves).
	keepCheckpoints bool
}

// Options tunes a Log.
type Options struct {
	// CheckpointEvery is how many events pass between Session projection checkpoints
	// (0: DefaultCheckpointEvery).
	CheckpointEvery uint64
	// Redact, when set, is applied to every record's data before it is appended: no secret value
	// enters the log, whoever wrote the record. The secrets service gives it.
	Redact func(data []byte) []byte
	// Logger receives the log's warnings, such as a checkpoint that could not be stored
	// (default: discarded).
	Logger *slog.Logger
}

// DefaultCheckpointEvery is the default checkpoint interval.
const DefaultCheckpointEvery = 512

// New returns the log kept in st.
func New(st *store.Store, opts Options) *Log {
	if opts.CheckpointEvery == 0 {
		opts.CheckpointEvery = DefaultCheckpointEvery
	}
	return &Log{st: st, opts: opts, states: map[string]*api.SessionState{}}
}

// Store returns the store the log is kept in.
func (l *Log) Store() *store.Store { return l.st }

// SetKeepCheckpoints turns the pruning of older checkpoints off (keep true) or on: benchmarks
// and tests measuring what pruning saves.
func (l *Log) SetKeepCheckpoints(keep bool) { l.keepCheckpoints = keep }

// Subscribe returns a channel of notices (committed events and live deltas) and a function
// that ends the subscription.
func (l *Log) Subscribe(buffer int) (<-chan api.Notice, func()) {
	ch := l.broker.subscribe(buffer, false, "")
	return ch, func() { l.broker.unsubscribe(ch) }
}

// SubscribeSession is Subscribe for a client that follows one session: its channel starts with
// the answer streaming there so far (a notice marked SoFar), if one is, so that a client
// attaching mid-answer shows it from its start. Nothing published meanwhile is missed or sent
// twice.
func (l *Log) SubscribeSession(buffer int, session string) (<-chan api.Notice, func()) {
	ch := l.broker.subscribe(buffer, false, session)
	return ch, func() { l.broker.unsubscribe(ch) }
}

// ReplayAnswer sends the subscriber reading ch the answer streaming on session so far (a
// notice marked SoFar), if one is: for a watch that turns to another session mid-answer.
func (l *Log) ReplayAnswer(ch <-chan api.Notice, session string) { l.broker.replayTo(ch, session) }

// SubscribeChanges is Subscribe without the notices that carry streamed text alone (answer
// deltas, reasoning, sandbox output), for a follower of committed events, turns, clients and
// peers: a long answer costs it, and the publisher, nothing.
func (l *Log) SubscribeChanges(buffer int) (<-chan api.Notice, func()) {
	ch := l.broker.subscribe(buffer, true, "")
	return ch, func() { l.broker.unsubscribe(ch) }
}

// Publish sends a live notice (a streaming delta or sandbox output) to subscribers.
func (l *Log) Publish(n api.Notice) { l.broker.publish(n) }

// CloseSubscriptions ends every subscription (the harness is closing).
func (l *Log) CloseSubscriptions() { l.broker.close() }

// log returns the log's logger.
func (l *Log) log() *slog.Logger {
	if l.opts.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l.opts.Logger
}
