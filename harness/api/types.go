package api

import (
	"encoding/json"
	"time"
)

// SessionInfo is a session with the summary of its projected state, as lists show it.
type SessionInfo struct {
	Session *Session `json:"session"`
	Status  Status   `json:"status"`
	Head    uint64   `json:"head"`
	Model   string   `json:"model,omitempty"`
	Steps   int      `json:"steps"`
	Usage   Usage    `json:"usage"`
	Cost    float64  `json:"cost"`
	// Running is true while a turn runs on the session in the
	Running bool `json:"running"`
	// Clients counts the apps and tails watching the session.
	Clients int `json:"clients"`
	// Drift and Conflicts are the governance summary (drift in [0,1]).
	Drift     float64 `json:"drift"`
	Conflicts int     `json:"conflicts"`
	// Executor is the executor in force ("" or default: exo's own).
	Executor string `json:"executor,omitempty"`
	// LastActivity is when the session's log last changed; LastUsed when the user last
	// prompted it (its creation before that); LastPrompt the newest user prompt the projection
	// holds (cut to a line), for pickers.
	LastActivity time.Time `json:"last_activity"`
	LastUsed     time.Time `json:"last_used"`
	LastPrompt   string    `json:"last_prompt,omitempty"`
	// Node, when set, is the daemon that runs the session on another machine sharing the store
	// (etcd); Live says that daemon still holds it, Orphaned that it is gone and the session's
	// workspace is not reachable here.
	Node     string `json:"node,omitempty"`
	Live     bool   `json:"live,omitempty"`
	Orphaned bool   `json:"orphaned,omitempty"`
	// Damaged, when set, says why the session's log could not be read (its projection is then
	// empty): the other sessions are listed all the same, and exo verify names the bad event.
	Damaged string `json:"damaged,omitempty"`
}

// NewSessionRequest creates a session.
type NewSessionRequest struct {
	Name      string            `json:"name,omitempty"`
	Workspace string            `json:"workspace"`
	Model     string            `json:"model,omitempty"`
	Settings  map[string]string `json:"settings,omitempty"`
	// Scope flags: allow and deny globs, file budget and shell-change policy.
	Scope ScopeRequest `json:"scope"`
	// OverrideGovernance starts even though the constitution changed since 'exo compile'
	// (recorded as overridden).
	OverrideGovernance bool `json:"override_governance,omitempty"`
}

// ForkRequest forks a session.
type ForkRequest struct {
	Session string `json:"session"`
	Seq     uint64 `json:"seq,omitempty"`
	// Branch forks one of the session's other branches (an abandoned one).
	Branch string `json:"branch,omitempty"`
	Name   string `json:"name,omitempty"`
	// Scope, when set, narrows the fork's scope (it may only narrow).
	Scope *Scope `json:"scope,omitempty"`
}

// RewindPlan says what a rewind would undo.
type RewindPlan struct {
	Seq    uint64   `json:"seq"`
	Events int      `json:"events"`
	Files  []string `json:"files"`
}

// TurnRequest starts a turn.
type TurnRequest struct {
	Session string `json:"session"`
	Text    string `json:"text"`
	// Source says who asks: tui, run, mcp…
	Source string `json:"source,omitempty"`
	// MaxSteps bounds model calls (0: the default).
	MaxSteps int `json:"max_steps,omitempty"`
	// AutoApprove answers every "ask" with approve-once; Headless fails them closed otherwise.
	AutoApprove bool `json:"auto_approve,omitempty"`
	Headless    bool `json:"headless,omitempty"`
	// OverrideGovernance runs even though the constitution changed since 'exo compile'.
	OverrideGovernance bool `json:"override_governance,omitempty"`
	// Executor runs the turn: default (exo's own), claude-code…; empty keeps the session's.
	Executor string `json:"executor,omitempty"`
	// NativeTools lets an external agent use its own tools, each use approved by exo.
	NativeTools bool `json:"native_tools,omitempty"`
	// Approval is the user's approval mode (auto, ask or read-only, from their configuration);
	// empty keeps the session's. The session's project file (.exo/config.toml) may tighten it.
	Approval string `json:"approval,omitempty"`
	// AllowUnconfined runs an agent that acts itself (native tools, ACP agents) even where its
	// process cannot be fully confined: the user's explicit consent.
	AllowUnconfined bool `json:"allow_unconfined,omitempty"`
	// ExecutorMode is the session mode an ACP agent runs in (one it offers); empty keeps the one
	// the user chose before for the session's agent, else exo picks one in which the agent asks.
	ExecutorMode string `json:"executor_mode,omitempty"`
	// WhenBusy says what the prompt does when a turn already runs on the session: BusyRefuse
	// (ErrBusy), BusyQueue (sent when the turn ends) or BusySteer (taken by the running turn at
	// its next step).
	WhenBusy string `json:"when_busy,omitempty"`
}

// TurnStarted identifies a started turn, or a queued prompt and the turn it will start.
type TurnStarted struct {
	ID      string `json:"id"`
	Session string `json:"session"`
	Branch  string `json:"branch"`
	// Seq is the head of the branch before the prompt was appended.
	Seq uint64 `json:"seq"`
	// Queued is set when a turn was running: the prompt was queued (prompt.queued, its id ID),
	// and the turn ID starts when it is sent. Steer is set when it was queued to steer.
	Queued bool `json:"queued,omitempty"`
	Steer  bool `json:"steer,omitempty"`
}

// GateRequest asks whether an action another agent wants in a session (exo mcp serve's exec
// and rewind_session) may run: the session's PreToolUse hooks and approval policy for Tool
// decide, and a policy that asks waits for the user's answer in the app.
type GateRequest struct {
	Session string `json:"session"`
	// Tool is the tool whose hooks and policy apply: bash for a command, or the action's name.
	Tool string `json:"tool"`
	// Args are the tool's arguments as a model would give them ({"command": …} for bash).
	Args json.RawMessage `json:"args,omitempty"`
	// Summary is the one line the approval shows.
	Summary string `json:"summary,omitempty"`
	// Default is the policy when the session's rules do not name Tool ("": the tool's own).
	Default string `json:"default,omitempty"`
	// Headless refuses at once what would need the user's answer (no app shows the session).
	Headless bool `json:"headless,omitempty"`
}

// GateResult is the decision: Allowed, else Reason. Args are the arguments to run with (a
// hook may have rewritten them); CallID names the approval events when one was asked.
type GateResult struct {
	Allowed bool            `json:"allowed"`
	Reason  string          `json:"reason,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
	CallID  string          `json:"call_id"`
}

// ExecRequest runs a command in a session's sandbox.
type ExecRequest struct {
	Session string        `json:"session"`
	Command string        `json:"command"`
	Timeout time.Duration `json:"timeout,omitempty"`
}

// ExecResult is a finished command.
type ExecResult struct {
	ExitCode   int    `json:"exit_code"`
	Killed     bool   `json:"killed,omitempty"`
	KillReason string `json:"kill_reason,omitempty"`
	DurationMs int64  `json:"duration_ms"`
	Artifact   string `json:"artifact,omitempty"`
}

// EnforcementInfo is the sandbox policy in force for a session.
type EnforcementInfo struct {
	Summary  string `json:"summary"`
	Network  bool   `json:"network"`
	Confined bool   `json:"confined"`
}

// RemoteModels is what the endpoints serve; Problems names the endpoints that could not be
// listed (the others are still listed).
type RemoteModels struct {
	Models   []RemoteModel `json:"models"`
	Problems string        `json:"problems,omitempty"`
}

// ModelList is the model registry.
type ModelList struct {
	Models  []ModelSpec `json:"models"`
	Default string      `json:"default,omitempty"`
}

// DriftReport is a session's drift and conflicts.
type DriftReport struct {
	Session   string             `json:"session"`
	Name      string             `json:"name"`
	Scope     Scope              `json:"scope"`
	Drift     Drift              `json:"drift"`
	Conflicts []ConflictDetected `json:"conflicts,omitempty"`
}

// FinishRequest finishes a session.
type FinishRequest struct {
	Session      string        `json:"session"`
	Summary      string        `json:"summary,omitempty"`
	SkipChecks   bool          `json:"skip_checks,omitempty"`
	CheckTimeout time.Duration `json:"check_timeout,omitempty"`
}

// HandoffRequest finishes a session and hands it to another (created when new).
type HandoffRequest struct {
	Finish FinishRequest `json:"finish"`
	To     string        `json:"to"`
	Note   string        `json:"note,omitempty"`
}

// HandoffResult reports a handoff.
type HandoffResult struct {
	From    *Session `json:"from"`
	To      *Session `json:"to"`
	Created bool     `json:"created"`
	Memento *Memento `json:"memento,omitempty"`
	// Warning is set when the checks ran under a stale lock.
	Warning string `json:"warning,omitempty"`
}

// DoctorReport is what `exo doctor` shows.
type DoctorReport struct {
	Home          string `json:"home"`
	DB            string `json:"db"`
	Schema        uint64 `json:"schema"`
	DBBytes       int64  `json:"db_bytes"`
	Sessions      int    `json:"sessions"`
	Artifacts     int    `json:"artifacts"`
	ArtifactBytes int64  `json:"artifact_bytes"`
	Models        int    `json:"models"`
	DefaultModel  string `json:"default_model,omitempty"`
	// Sandbox is what this machine supports (sandbox capabilities); SandboxText renders it.
	Sandbox     json.RawMessage `json:"sandbox"`
	SandboxText string          `json:"sandbox_text"`
	// Enforced is the sandbox policy a new session gets.
	Enforced string `json:"enforced"`
	// Agents is what an external agent's process runs under here; AgentsConfined says whether
	// that is everything (else agents that act themselves are refused without consent).
	Agents         string `json:"agents,omitempty"`
	AgentsConfined bool   `json:"agents_confined,omitempty"`
	// Daemon describes the harness process (empty in-process).
	Daemon *DaemonInfo `json:"daemon,omitempty"`
	// MCP is the state of the MCP servers configured for the workspace asked about.
	MCP []MCPStatus `json:"mcp,omitempty"`
	// Damaged says why the store refuses writes ("" when it is sound).
	Damaged string `json:"damaged,omitempty"`
	// ReadOnly says why the store refuses writes because EXO_HOME cannot be written ("" when it
	// can): sessions, logs and verification work, nothing can be changed.
	ReadOnly string `json:"read_only,omitempty"`
	// Executors says which executors can run here (binary found, version).
	Executors []ExecutorInfo `json:"executors"`
	// Recovered is what the harness put back in order when it opened after a process died.
	Recovered *RecoveryReport `json:"recovered,omitempty"`
	// Cluster describes the etcd cluster of a shared store (nil on a local one).
	Cluster *ClusterReport `json:"cluster,omitempty"`
}

// DaemonInfo describes a running daemon.
type DaemonInfo struct {
	Pid   int    `json:"pid"`
	Build string `json:"build"`
	// Built is when the daemon's build was made (its commit time, or its binary's time for a
	// build of uncommitted changes): only a newer build replaces an idle daemon.
	Built    time.Time `json:"built"`
	Protocol int       `json:"protocol"`
	Socket   string    `json:"socket"`
	Home     string    `json:"home"`
	Started  time.Time `json:"started"`
	Log      string    `json:"log"`
	// IdleTimeout is how long the daemon stays with no clients and no work.
	IdleTimeout time.Duration `json:"idle_timeout"`
	// Telemetry fingerprints the OTEL_* variables the daemon started with ("" for none; see
	// relay.TelemetryEnv): they configure its telemetry, which a client's variables do not change.
	Telemetry string `json:"telemetry,omitempty"`
}

// Activity is what runs in the harness now.
type Activity struct {
	// Running maps sessions with a running turn to the turn's id.
	Running map[string]string `json:"running"`
	// Clients counts the watchers attached to each session.
	Clients map[string]int `json:"clients"`
	// Connections counts the clients connected to the daemon; Watchers its open watch and tail
	// streams (apps, exo tail, exo run), attached to a session or not.
	Connections int `json:"connections"`
	Watchers    int `json:"watchers"`
	// Tasks counts running background tasks; Agents running subagents.
	Tasks  int         `json:"tasks"`
	Agents int         `json:"agents"`
	Daemon *DaemonInfo `json:"daemon,omitempty"`
	// Store is whether the daemon's shared store answers (nil on a local store).
	Store *StoreState `json:"store,omitempty"`
}

// WatchRequest chooses what a watch streams.
type WatchRequest struct {
	// Session, when set, streams that session only, starting with its committed events after
	// After on its current branch (a tail); empty streams every session's live notices.
	Session string `json:"session,omitempty"`
	After   uint64 `json:"after,omitempty"`
	// Branch is the branch After refers to (a resumed tail after a rewind); default current.
	Branch string `json:"branch,omitempty"`
	// Attach counts this watch as a client of that session (the siblings pane shows it).
	Attach string `json:"attach,omitempty"`
	// Client names the watcher in the daemon's log (app, tail, run…).
	Client string `json:"client,omitempty"`
}

// Watcher is a running watch.
type Watcher struct {
	// C delivers notices in order; it closes when the watch ends.
	C <-chan Notice
	// ID identifies the watch (SetAttach uses it).
	ID    string
	err   func() error
	close func()
}

// NewWatcher builds a Watcher from its channel, error and close functions (for implementations).
func NewWatcher(id string, c <-chan Notice, err func() error, close func()) *Watcher {
	return &Watcher{C: c, ID: id, err: err, close: close}
}

// Err returns why the watch ended (nil while it runs or when it was closed).
func (w *Watcher) Err() error {
	if w.err == nil {
		return nil
	}
	return w.err()
}

// Close ends the watch.
func (w *Watcher) Close() {
	if w.close != nil {
		w.close()
	}
}

// ProjectTrust is the code a project provides that would run on the host as the user (its
// .mcp.json servers and .exo/settings*.json hooks) and whether the user trusts it.
type ProjectTrust struct {
	Workspace string `json:"workspace"`
	// Project is the folder whose trust applies (its real path).
	Project string      `json:"project"`
	Files   []TrustFile `json:"files"`
	// Trusted is true when every file that would run something is trusted.
	Trusted bool `json:"trusted"`
}

// TrustFile is one project file that can run code.
type TrustFile struct {
	Path string `json:"path"` // relative to the project
	Hash string `json:"hash"` // SHA-256 of the contents shown
	// State is trusted, untrusted, changed (trusted once, different now) or inert (runs nothing).
	State string `json:"state"`
	// Runs lists what the file would start: MCP servers' commands or URLs, hook commands.
	Runs  []string `json:"runs,omitempty"`
	Error string   `json:"error,omitempty"`
}

// TrustRequest trusts a project's files as the user reviewed them (or revokes its trust).
type TrustRequest struct {
	Workspace string `json:"workspace"`
	// Files maps each file's relative path to the hash the user was shown (ProjectTrust); a file
	// whose contents changed since is refused.
	Files  map[string]string `json:"files,omitempty"`
	Revoke bool              `json:"revoke,omitempty"`
}

// ClusterReport describes the etcd cluster a shared store is kept in, as the daemon sees it.
type ClusterReport struct {
	Endpoints []string `json:"endpoints"`
	Namespace string   `json:"namespace"`
	// Node is this daemon's name on the cluster.
	Node    string          `json:"node"`
	Members []ClusterMember `json:"members"`
	// Leader names the leading member ("" while none does, or none answered).
	Leader   string `json:"leader,omitempty"`
	Revision int64  `json:"revision"`
	// DBBytes is the largest backend a member reported, against its space quota.
	DBBytes    int64 `json:"db_bytes"`
	QuotaBytes int64 `json:"quota_bytes"`
	// Lease is this daemon's lease (0 while it holds none), TTLSeconds its TTL and
	// LeftSeconds what the cluster says it has left.
	Lease       int64 `json:"lease"`
	TTLSeconds  int64 `json:"ttl_seconds"`
	LeftSeconds int64 `json:"left_seconds"`
	// Reachable says whether the cluster answers; Unreachable why not, since when.
	Reachable   bool      `json:"reachable"`
	Unreachable string    `json:"unreachable,omitempty"`
	Since       time.Time `json:"since"`
	Outages     int       `json:"outages"`
	// Alarms are the cluster's raised alarms (NOSPACE, CORRUPT).
	Alarms []string `json:"alarms,omitempty"`
	// Error says why the cluster could not be described.
	Error string `json:"error,omitempty"`
}

// ClusterMember is one member of the etcd cluster.
type ClusterMember struct {
	Name       string   `json:"name"`
	ID         string   `json:"id"`
	ClientURLs []string `json:"client_urls"`
	Learner    bool     `json:"learner,omitempty"`
	Version    string   `json:"version,omitempty"`
	DBBytes    int64    `json:"db_bytes,omitempty"`
	// Error says why the member did not answer.
	Error string `json:"error,omitempty"`
}
