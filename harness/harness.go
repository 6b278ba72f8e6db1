package harness

import (
	"log/slog"
	"sync"

	"exo/harness/eventlog"
	"exo/harness/models"
	"exo/harness/rundir"
	"exo/harness/runtimes"
	"exo/harness/sealed"
	"exo/harness/secrets"
	"exo/harness/sessions"
	"exo/harness/workspaces"
	"exo/sandbox"
	"exo/store"
)

// Harness is the trusted owner of exo's state. The UI and executors reach sessions, events and
// projections only through it.
type Harness struct {
	// Log is the event log (appends, held records, projections, subscriptions): its methods
	// are the harness's.
	*eventlog.Log
	// Secrets is the sealed secrets and the redaction of their values: its methods are the
	// harness's.
	*sealed.Secrets
	// Registry is the models and the providers built from them: its methods are the harness's.
	*models.Registry
	// Directory is the sessions: records, references, branches, peers, mentions. Its methods
	// are the harness's.
	*sessions.Directory
	// Workspaces is the sessions' files: snapshots, restores, the watcher, commands, forks' working
	// copies, removal and gc. Its methods are the harness's.
	*workspaces.Workspaces
	// Runtimes is what runs in the sessions' sandboxes: the live sandboxes, what commands leave
	// running, background and detached tasks, their artifacts. Its methods are the harness's.
	*runtimes.Runtimes

	st   *store.Store
	opts Options

	mu       sync.Mutex
	recovery RecoveryReport
	// realHome is EXO_HOME with its links resolved once, at open: where backups may go is
	// judged against it, never against what a link in its path says later.
	realHome string
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

// homeEvidence lists what the harness keeps in EXO_HOME besides the database: when any of it is
// there, a missing or empty exo.db was lost, and the store refuses to start afresh over it.
var homeEvidence = []string{secrets.KeyFileName, "shadow", "workspaces", "tasks"}

// ErrCorrupt means EXO_HOME's database is damaged: opening it was refused, or it refuses writes.
var ErrCorrupt = store.ErrCorrupt

// Diagnosis is what Diagnose finds about a database without opening it.
type Diagnosis = store.Diagnosis

// Diagnose describes EXO_HOME's database file without opening or locking it, so that a store
// Open refuses can still be explained (`exo doctor`). What the harness keeps in EXO_HOME besides
// the database (homeEvidence) tells a lost database from a new home.
func Diagnose(home string) Diagnosis { return store.Inspect(home, homeEvidence) }

// DefaultCheckpointEvery is the default checkpoint interval.
const DefaultCheckpointEvery = eventlog.DefaultCheckpointEvery

// HomeDir returns EXO_HOME: the environment variable, or ~/.exo.
func HomeDir() (string, error) { return rundir.HomeDir() }

// Open opens the harness on EXO_HOME home.
func Open(home string, opts Options) (*Harness, error) {
	if opts.CheckpointEvery == 0 {
		opts.CheckpointEvery = DefaultCheckpointEvery
	}
	st, err := eventlog.OpenStore(home, eventlog.StoreConfig{Store: opts.Store, ConfigFile: opts.ConfigFile, NoSync: opts.NoSync, Evidence: homeEvidence})
	if err != nil {
		return nil, err
	}
	h := &Harness{st: st, opts: opts}
	h.realHome = realHome(h.Home())
	// The rooms are built bottom up (see the map in doc.go): the secrets on the store, the
	// models, the log (which redacts what it appends with the secrets), the sessions on the
	// log, the runtime on the sessions (its hooks into the workspaces, runtimeHooks, find them
	// when called), the workspaces on the runtime.
	if h.Secrets, err = sealed.Open(st, h.PrivateDirs()); err != nil {
		st.Close()
		return nil, err
	}
	h.Registry = models.New(st, opts.DemoScript, h.Secrets)
	h.Log = eventlog.New(st, eventlog.Options{CheckpointEvery: opts.CheckpointEvery, Logger: opts.Log, Redact: h.redactBytes})
	h.Directory = sessions.New(h.Log, h.Secrets, sessions.Hooks{Interrupted: h.interruptedRecords, TakenOver: ReasonTakenOver, Unfinished: h.unfinished})
	h.Runtimes = runtimes.New(h.Log, h.Directory, h.Secrets, runtimes.Options{Home: h.Home(), Private: h.PrivateDirs(),
		ConfigFile: opts.ConfigFile, Helper: opts.SandboxHelper, Capabilities: opts.Capabilities, Hooks: h.runtimeHooks()})
	h.Workspaces = workspaces.New(h.Log, h.Directory, h.Secrets, h.Runtimes,
		workspaces.Options{Home: h.Home(), Private: h.PrivateDirs(), Helper: opts.SandboxHelper, Logger: opts.Log})
	h.Recover()
	h.RecordDetached()
	return h, nil
}

// Close ends subscriptions and closes the store.
func (h *Harness) Close() error {
	h.StopBackground() // nothing writes into EXO_HOME after Close
	h.ReleaseAll()
	h.Runtimes.Close()
	h.CloseSubscriptions()
	return h.st.Close()
}

// Store exposes the underlying store to harness sub-packages and the CLI's diagnostics.
func (h *Harness) Store() *store.Store { return h.st }

// Home returns EXO_HOME.
func (h *Harness) Home() string { return h.st.Home() }

// PrivateDirs are exo's own folders: its home and the daemon's runtime folder. A workspace may
// hold them (a session in the home folder with exo's home at ~/.exo): snapshots, restores, the
// watcher, forks and the file tools leave them out.
func (h *Harness) PrivateDirs() []string {
	return append([]string{h.Home()}, h.opts.PrivateDirs...)
}

// SandboxHelper is the argv prefix that runs the sandbox helper (nil: this executable), for
// harness sub-packages that start confined helper programs such as MCP servers.
func (h *Harness) SandboxHelper() []string { return h.opts.SandboxHelper }

// PrivateIn lists exo's own folders inside workspace, relative to it (slash-separated).
func (h *Harness) PrivateIn(workspace string) []string {
	return sandbox.PrivateRels(workspace, h.PrivateDirs())
}
