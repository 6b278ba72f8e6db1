package harness

import (
	"log/slog"
	"sync"

	"exo/harness/rundir"
	"exo/harness/secrets"
	"exo/sandbox"
	"exo/store"
)

// Harness is the trusted owner of exo's state. The UI and executors reach sessions, events and
// projections only through it.
type Harness struct {
	st   *store.Store
	opts Options

	mu       sync.Mutex
	states   map[string]*SessionState // by branch, kept at the branch head
	broker   broker
	rt       runtimes
	brk      breakers
	sec      secretState
	snapHook SnapshotHook
	recovery RecoveryReport
	// held is the records held for a session's next commit (see Hold).
	held holds
	// keepCheckpoints turns checkpoint pruning off (benchmarks measuring what it saves).
	keepCheckpoints bool
	// realHome is EXO_HOME with its links resolved once, at open: where backups may go is
	// judged against it, never against what a link in its path says later.
	realHome string
	// background is the work started for a client that no call waits for (a session's first
	// snapshot while the user types): Close waits for it, so nothing writes into EXO_HOME after;
	// bgClosed (under bgMu) refuses more once Close began.
	background sync.WaitGroup
	bgMu       sync.Mutex
	bgClosed   bool
}

// Options tunes a Harness.
type Options struct {
	// CheckpointEvery is how many events pass between Session projection checkpoints.
	CheckpointEvery uint64
	// NoSync skips fsync on commit: for benchmarks only.
	NoSync bool
	// DemoScript is the built-in scripted-model script used by a scripted model without a path.
	DemoScript []byte
	// Store names the store: "" (then EXO_STORE, ConfigFile's store key or EXO_HOME/store.url
	// decide; default the local bbolt file) or etcd://host:2379,…/namespace?options (see
	// store.ParseURL).
	Store string
	// ConfigFile is the user's configuration file, whose store key names the store when
	// neither Store nor EXO_STORE does ("" reads none: tests and embedders).
	ConfigFile string
	// SandboxHelper is the argv prefix that runs sandbox.HelperMain (default: this executable).
	SandboxHelper []string
	// Capabilities, when set, stand in for the probe of what isolation this machine supports
	// (tests that play a machine lacking some).
	Capabilities *sandbox.Capabilities
	// Log receives the harness's warnings, such as a checkpoint that could not be stored
	// (default: discarded).
	Log *slog.Logger
	// PrivateDirs are exo's folders besides its home (the daemon's runtime folder): like the
	// home, a workspace that holds one never has it snapshotted, watched, cloned or searched.
	PrivateDirs []string
}

// log returns the harness's logger.
func (h *Harness) log() *slog.Logger {
	if h.opts.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return h.opts.Log
}

// homeEvidence lists what the harness keeps in EXO_HOME besides the database: when any of it is
// there, a missing or empty exo.db was lost, and the store refuses to start afresh over it.
var homeEvidence = []string{secrets.KeyFileName, "shadow", "workspaces", "tasks"}

// DefaultCheckpointEvery is the default checkpoint interval.
const DefaultCheckpointEvery = 512

// HomeDir returns EXO_HOME: the environment variable, or ~/.exo.
func HomeDir() (string, error) { return rundir.HomeDir() }

// Open opens the harness on EXO_HOME home.
func Open(home string, opts Options) (*Harness, error) {
	if opts.CheckpointEvery == 0 {
		opts.CheckpointEvery = DefaultCheckpointEvery
	}
	st, err := openStore(home, opts)
	if err != nil {
		return nil, err
	}
	h := &Harness{st: st, opts: opts, states: map[string]*SessionState{}}
	h.realHome = realHome(h.Home())
	if err := h.openSecrets(); err != nil {
		st.Close()
		return nil, err
	}
	h.Recover()
	h.RecordDetached()
	return h, nil
}

// Close ends subscriptions and closes the store.
func (h *Harness) Close() error {
	h.bgMu.Lock()
	h.bgClosed = true
	h.bgMu.Unlock()
	h.background.Wait()
	h.releaseAll()
	h.closeRuntimes()
	h.broker.close()
	return h.st.Close()
}

// Store exposes the underlying store to harness sub-packages and the CLI's diagnostics.
func (h *Harness) Store() *store.Store { return h.st }

// Home returns EXO_HOME.
func (h *Harness) Home() string { return h.st.Home() }

// Subscribe returns a channel of notices (committed events and live deltas) and a function
// that ends the subscription.
func (h *Harness) Subscribe(buffer int) (<-chan Notice, func()) {
	ch := h.broker.subscribe(buffer)
	return ch, func() { h.broker.unsubscribe(ch) }
}

// Publish sends a live notice (a streaming delta or sandbox output) to subscribers.
func (h *Harness) Publish(n Notice) { h.broker.publish(n) }

// goBackground runs fn in the background unless the harness is closing; Close waits for it.
func (h *Harness) goBackground(fn func()) {
	h.bgMu.Lock()
	defer h.bgMu.Unlock()
	if h.bgClosed {
		return
	}
	h.background.Go(fn)
}
