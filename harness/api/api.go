package api

import (
	"context"
	"io"
)

// Client is everything a client may ask of the  Errors keep their identity across the
// wire: errors.Is works with ErrNoSession, ErrAmbiguous, ErrBadSeq and
// the errors of this package.
type Client interface {
	Sessions
	Turns
	Sandbox
	Registry
	Governance
	Lifecycle
	Attempts
	// Watch streams notices: committed events, live deltas, sandbox output and turn and client
	// changes. The channel closes when ctx ends or the connection is lost (then Err says why).
	Watch(ctx context.Context, req WatchRequest) (*Watcher, error)
	// Attach counts a watch as a client of a session ("" detaches it): the siblings pane shows
	// which sessions are watched.
	Attach(ctx context.Context, watchID, sessionID string) error
	// Doctor reports the harness's state, what this machine's sandbox enforces and the MCP
	// servers configured for workspace (each started and asked for its tools).
	Doctor(ctx context.Context, workspace string) (DoctorReport, error)
	// MCPStatus lists the MCP servers configured for workspace; check starts each and counts
	// its tools.
	MCPStatus(ctx context.Context, workspace string, check bool) ([]MCPStatus, error)
	// Commands lists the custom slash commands a workspace offers (read by the daemon, through
	// its no-follow file layer: the app never reads the workspace itself).
	Commands(ctx context.Context, workspace string) ([]CommandInfo, error)
	// ProjectTrust reports the code workspace's project would run on the host (.mcp.json
	// servers, .exo/settings*.json hooks) and whether the user trusts it.
	ProjectTrust(ctx context.Context, workspace string) (ProjectTrust, error)
	// Trust records the user's trust in a project's files as reviewed, or revokes it.
	Trust(ctx context.Context, req TrustRequest) (ProjectTrust, error)
	// Redact returns text with every sealed secret's value (and its encodings) replaced by
	// ‹secret:NAME›.
	Redact(ctx context.Context, text string) (string, error)
	// Activity reports which sessions run turns and how many clients watch each.
	Activity(ctx context.Context) (Activity, error)
	// Close releases the client (not the harness).
	Close() error
}

// Sessions reads and changes sessions, their branches and their logs.
type Sessions interface {
	// ListSessions returns every session, oldest first, with its projected state.
	ListSessions(ctx context.Context) ([]SessionInfo, error)
	// Session resolves an id, a unique id prefix or a name: of this daemon's sessions, else of
	// the other daemons' on a shared store (Node set: shown read-only; TakeOver makes it ours).
	Session(ctx context.Context, ref string) (*Session, error)
	// TakeOver makes another daemon's session on a shared store this daemon's once that daemon
	// is gone: ErrNotOwner while it lives, ErrOrphaned when the session's
	// workspace is not reachable here. A turn it left running is recorded as interrupted.
	TakeOver(ctx context.Context, ref string) (*Session, error)
	// NewSession creates a session (scope and governance records included).
	NewSession(ctx context.Context, req NewSessionRequest) (*Session, error)
	// SetSetting sets one of a session's settings (model, executor, budgets…); "" removes it.
	SetSetting(ctx context.Context, sessionID, key, value string) (*Session, error)
	// Fork starts a sibling from a session's history up to Seq (0: its head).
	Fork(ctx context.Context, req ForkRequest) (*Session, error)
	// Rewind continues a session from seq on a new branch, files included.
	Rewind(ctx context.Context, sessionID string, seq uint64) (*Session, error)
	// RewindPreview says what a rewind to seq would undo.
	RewindPreview(ctx context.Context, sessionID string, seq uint64) (RewindPlan, error)
	// Say appends a user message without running a turn.
	Say(ctx context.Context, sessionID, text, source string) (Event, error)
	// Files lists the session's workspace for @path completion: what .gitignore leaves in,
	// folders with a trailing slash (see ListFiles).
	Files(ctx context.Context, sessionID string) ([]string, error)
	// State returns the Session projection of a branch at its head.
	State(ctx context.Context, branch string) (*SessionState, error)
	// StateAt returns the Session projection of a branch as of seq.
	StateAt(ctx context.Context, branch string, seq uint64) (*SessionState, error)
	// Events returns events from..to (to 0: the head) of a branch's whole history.
	Events(ctx context.Context, branch string, from, to uint64) ([]Event, error)
	// BranchPoints counts the forks and rewinds taken at each seq of a branch's history.
	BranchPoints(ctx context.Context, branch string) (map[uint64]int, error)
	// Verify recomputes hash chains: of a session's branches, or everything when id is "".
	Verify(ctx context.Context, sessionID string) (VerifyReport, error)
	// Artifact opens an artifact by id or unique prefix.
	Artifact(ctx context.Context, id string) (io.ReadCloser, error)
	// FileAtSnapshot returns a file as the session's newest snapshot holds it.
	FileAtSnapshot(ctx context.Context, sessionID, path string) (string, error)
}

// Turns runs and steers executor turns.
type Turns interface {
	// StartTurn appends the prompt and starts a turn in the harness; it returns at once.
	// ErrBusy when a turn already runs on the session, unless req.WhenBusy queues the prompt
	// (see queue_events.go).
	StartTurn(ctx context.Context, req TurnRequest) (TurnStarted, error)
	// WaitTurn waits for a turn of a session to end (the running one, or the last one when
	// turnID is "") and returns its result.
	WaitTurn(ctx context.Context, sessionID, turnID string) (TurnResult, error)
	// CancelTurn stops the turn running on a session (no error when none runs).
	CancelTurn(ctx context.Context, sessionID string) error
	// Unqueue takes back a prompt queued while a turn ran (prompt.unqueued, reason cancelled);
	// ErrNotFound once it was sent or steered.
	Unqueue(ctx context.Context, sessionID, promptID string) error
	// Approve answers an approval request; the first answer wins and later ones get
	// ErrResolved.
	Approve(ctx context.Context, sessionID, callID, decision string) error
	// Gate decides whether an action another agent asks for (exo mcp serve's exec, rewind) may
	// run in a session under its hooks and approval policy, asking the user when the policy
	// says ask; it returns when decided (a refusal is a result, not an error).
	Gate(ctx context.Context, req GateRequest) (GateResult, error)
	// Compact compacts a session's prompt view now.
	Compact(ctx context.Context, sessionID string) (CompactionReport, error)
	// SelectExecutor makes name (default, claude-code, codex, acp:COMMAND [ARGS]) the executor
	// of the session's next turns, recorded as executor.selected; an executor that cannot run
	// here is refused (ErrInvalid) with the reason.
	SelectExecutor(ctx context.Context, sessionID, name string) (ExecutorInfo, error)
}

// Sandbox runs commands in sessions' sandboxes.
type Sandbox interface {
	// Exec runs a command in the session's sandbox as the user (recorded as tool events);
	// output streams to out as it comes.
	Exec(ctx context.Context, req ExecRequest, out io.Writer) (ExecResult, error)
	// StartTask runs a command detached in the background and returns its handle.
	StartTask(ctx context.Context, sessionID, command string) (DetachedTask, error)
	// Tasks lists background tasks.
	Tasks(ctx context.Context) ([]DetachedTask, error)
	// TaskOutput writes a task's output so far.
	TaskOutput(ctx context.Context, taskID string, out io.Writer) error
	// KillTask kills a background task.
	KillTask(ctx context.Context, taskID string) error
	// Enforcement reports the sandbox policy in force for a session.
	Enforcement(ctx context.Context, sessionID string) (EnforcementInfo, error)
}

// Registry holds models and sealed secrets.
type Registry interface {
	// Models lists registered models and names the default.
	Models(ctx context.Context) (ModelList, error)
	// Model resolves a registered model by name ("": the default).
	Model(ctx context.Context, name string) (ModelSpec, error)
	// RegisterModel registers a model; its secret must be sealed already.
	RegisterModel(ctx context.Context, spec ModelSpec) (ModelSpec, error)
	// RemoveModel removes a registered model.
	RemoveModel(ctx context.Context, name string) error
	// SetDefaultModel makes a registered model the default.
	SetDefaultModel(ctx context.Context, name string) error
	// RemoteModels asks model endpoints which models they serve.
	RemoteModels(ctx context.Context, q RemoteQuery) (RemoteModels, error)
	// SetSecret seals a secret; the value never comes back.
	SetSecret(ctx context.Context, name string, value []byte) error
	// Secrets lists sealed secrets: names and dates only.
	Secrets(ctx context.Context) ([]SecretInfo, error)
	// RemoveSecret removes a sealed secret.
	RemoveSecret(ctx context.Context, name string) error
}

// Governance reads and changes scopes and runs the lifecycle commands.
type Governance interface {
	// Scope returns a session's scope.
	Scope(ctx context.Context, sessionID string) (Scope, error)
	// SetScope replaces a session's scope (recorded as scope.set); reason says why.
	SetScope(ctx context.Context, sessionID string, scope Scope, reason string) (Scope, error)
	// Drift reports a session's drift and conflicts.
	Drift(ctx context.Context, sessionID string) (DriftReport, error)
	// ConflictDiff renders the diffs of the paths a session and another both changed.
	ConflictDiff(ctx context.Context, sessionID, with string) (string, error)
	// Finish runs the constitution's checks and records the session's memento.
	Finish(ctx context.Context, req FinishRequest) (*Memento, error)
	// Handoff finishes a session and hands it to another.
	Handoff(ctx context.Context, req HandoffRequest) (*HandoffResult, error)
}
