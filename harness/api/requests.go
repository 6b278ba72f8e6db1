package api

// The requests and answers of the methods whose api.Client form takes or returns plain
// arguments: each is the method's wire form (methods.go says which field travels where).
// Fields bound to the path or the query are left out of JSON bodies.

// Empty is the request of a method that takes nothing and the answer of one that returns
// nothing (an empty JSON object).
type Empty struct{}

// Ref names a session by id, unique id prefix or name.
type Ref struct {
	Ref string `json:"-"`
}

// SessionRef names a session by id.
type SessionRef struct {
	Session string `json:"-"`
}

// BranchRef names a branch.
type BranchRef struct {
	Branch string `json:"-"`
}

// IDRef names an artifact or a background task by id.
type IDRef struct {
	ID string `json:"-"`
}

// NameRef names a model or a secret; as a body it is {"Name": …}.
type NameRef struct {
	Name string
}

// WorkspaceRef names a code workspace.
type WorkspaceRef struct {
	Workspace string `json:"-"`
}

// MCPRequest asks for the MCP servers of a workspace; Check starts each and counts its tools.
type MCPRequest struct {
	Workspace string `json:"-"`
	Check     bool   `json:"-"`
}

// Text is a text, asked about or answered.
type Text struct {
	Text string `json:"text"`
}

// Diff is a rendered diff.
type Diff struct {
	Diff string `json:"diff"`
}

// SettingRequest sets one of a session's settings.
type SettingRequest struct {
	Session string `json:"-"`
	Key     string
	Value   string
}

// SeqRequest names a seq of a session's current branch.
type SeqRequest struct {
	Session string `json:"-"`
	Seq     uint64 `json:"-"`
}

// SayRequest appends a user message to a session.
type SayRequest struct {
	Session string `json:"-"`
	Text    string
	Source  string
}

// FileRequest names a file of a session's newest snapshot.
type FileRequest struct {
	Session string `json:"-"`
	Path    string `json:"-"`
}

// StateRequest asks for a branch's projection: at its head, or as of Seq when set.
type StateRequest struct {
	Branch string  `json:"-"`
	Seq    *uint64 `json:"-"`
}

// EventsRequest asks for events From..To (To 0: the head) of a branch's whole history.
type EventsRequest struct {
	Branch string `json:"-"`
	From   uint64 `json:"-"`
	To     uint64 `json:"-"`
}

// WaitRequest waits for a turn of a session ("": the running or last one).
type WaitRequest struct {
	Session string `json:"-"`
	Turn    string `json:"-"`
}

// ExecutorRequest selects a session's executor.
type ExecutorRequest struct {
	Session string `json:"-"`
	Name    string `json:"name"`
}

// ApproveRequest answers an approval request.
type ApproveRequest struct {
	Session  string `json:"-"`
	CallID   string `json:"call_id"`
	Decision string `json:"decision"`
}

// TaskRequest starts a background task.
type TaskRequest struct {
	Session string
	Command string
}

// SecretRequest seals a secret.
type SecretRequest struct {
	Name  string `json:"-"`
	Value []byte `json:"value"`
}

// SetScopeRequest replaces a session's scope.
type SetScopeRequest struct {
	Session string `json:"-"`
	Scope   Scope  `json:"scope"`
	Reason  string `json:"reason"`
}

// ConflictRequest asks for the diffs of the paths a session and another both changed.
type ConflictRequest struct {
	Session string `json:"-"`
	With    string `json:"-"`
}

// ArchiveRequest archives a session or brings it back.
type ArchiveRequest struct {
	Ref      string `json:"-"`
	Archived bool   `json:"archived"`
}

// GCRequest lists (DryRun) or removes the folders no live session uses.
type GCRequest struct {
	DryRun bool `json:"dry_run"`
}

// BackupRequest writes a copy of the event store to Path ("": EXO_HOME/backups).
type BackupRequest struct {
	Path string `json:"path"`
}

// AttachRequest counts a watch as a client of a session ("" detaches it).
type AttachRequest struct {
	Watch   string `json:"-"`
	Session string `json:"session"`
}

// DrainRequest asks the daemon to exit: at once, or only when idle and replaced by a newer build.
type DrainRequest struct {
	IfIdle bool   `json:"if_idle"`
	Reason string `json:"reason"`
}

// DrainResult is the pid of the daemon that will exit.
type DrainResult struct {
	Pid int `json:"pid"`
}

// TailRequest is the query of a session's tail: its committed events after After (of Branch),
// then its live notices; Attach "1" counts the tail as a client of the session.
type TailRequest struct {
	Session string `json:"-"`
	After   uint64 `json:"-"`
	Branch  string `json:"-"`
	Attach  string `json:"-"`
	Client  string `json:"-"`
}

// WatchQuery is the query of a watch of every session: Attach counts it as a client of that
// Session, Client names the watcher in the daemon's log.
type WatchQuery struct {
	Attach string `json:"-"`
	Client string `json:"-"`
}

// StreamFrame is one line of a stream (watch, tail, exec): a notice, exec output, or the end.
type StreamFrame struct {
	// Watch is the id of the watch, in its first frame.
	Watch string `json:"watch,omitempty"`

	Session string  `json:"session,omitempty"`
	Events  []Event `json:"events,omitempty"`
	Delta   string  `json:"delta,omitempty"`
	// Reasoning is streamed reasoning ("thinking") of an answer in progress.
	Reasoning string         `json:"reasoning,omitempty"`
	Output    string         `json:"output,omitempty"`
	Lagged    bool           `json:"lagged,omitempty"`
	Turn      *TurnNotice    `json:"turn,omitempty"`
	Clients   map[string]int `json:"clients,omitempty"`
	// HasClients is set when Clients is meant, even empty (nobody watches anything).
	HasClients bool `json:"has_clients,omitempty"`
	// Peer names the daemon that runs Session elsewhere on a shared store.
	Peer string `json:"peer,omitempty"`
	// Progress is long work going on in Session.
	Progress *Progress `json:"progress,omitempty"`
	// Governance is Session's governance summary, when it changed.
	Governance *GovernanceSummary `json:"governance,omitempty"`
	// Updated is Session's record, when it changed other than by an event.
	Updated *Session `json:"updated,omitempty"`
	// Store is whether the daemon's shared store answers, when that changed.
	Store *StoreState `json:"store,omitempty"`

	// Result ends an exec stream; Error ends any stream that failed.
	Result *ExecResult       `json:"result,omitempty"`
	Error  *RemoteError      `json:"error,omitempty"`
	Ping   bool              `json:"ping,omitempty"`
	Extra  map[string]string `json:"extra,omitempty"`
}
