package api

import (
	"encoding/json"
)

// Event types: every type the harness and executors write is declared here, with its payload
// type registered in eventTypes (registry.go).
const (
	TypeSessionCreated     = "session.created"
	TypeInvocationReceived = "invocation.received"
	TypeStepStarted        = "step.started"
	TypeModelRequested     = "model.requested"
	TypeModelCompleted     = "model.completed"
	TypeModelFailed        = "model.failed"
	TypeToolStarted        = "tool.started"
	TypeToolCompleted      = "tool.completed"
	TypeTaskStarted        = "task.started"
	TypeTaskCompleted      = "task.completed"
	TypeArtifactCreated    = "artifact.created"
	TypeWorkspaceSnapshot  = "workspace.snapshot"
	TypeWorkspaceRestored  = "workspace.restored"
	TypeSecretDenied       = "secret.denied"
	TypePolicyViolation    = "policy.violation"
	TypeApprovalRequested  = "approval.requested"
	TypeApprovalResolved   = "approval.resolved"
	TypeCompactionApplied  = "compaction.applied"
	TypeTurnCancelled      = "turn.cancelled"
	TypeSessionForked      = "session.forked"
	TypeSessionRewound     = "session.rewound"
	TypeSessionSuspended   = "session.suspended"
	TypeSessionResumed     = "session.resumed"
	TypeSessionFinished    = "session.finished"
	TypeHandoffRecorded    = "handoff.recorded"
)

// Actors of events.
const (
	ActorUser    = "user"
	ActorHarness = "harness"
)

// ExecutorActor names an executor as an actor, e.g. "executor:default".
func ExecutorActor(name string) string { return "executor:" + name }

// ToolActor names a tool as an actor, e.g. "tool:bash".
func ToolActor(name string) string { return "tool:" + name }

// SessionCreated starts a session's history.
type SessionCreated struct {
	Name      string `json:"name"`
	Agent     string `json:"agent"`
	Workspace string `json:"workspace"`
	Model     string `json:"model,omitempty"`
}

// InvocationReceived is a user's message (a prompt) to the agent.
type InvocationReceived struct {
	Text   string `json:"text"`
	Source string `json:"source,omitempty"` // cli, tui, run, handoff
	// Attachments are the workspace files the text mentions with @path (see Attach).
	Attachments []Attachment `json:"attachments,omitempty"`
}

// StepStarted marks the start of one model-call-and-tools step of a turn.
type StepStarted struct {
	Step int `json:"step"`
}

// ModelRequested records that a prompt was sent to a model.
type ModelRequested struct {
	Model        string `json:"model"`
	Provider     string `json:"provider"`
	Step         int    `json:"step,omitempty"`
	PromptTokens int    `json:"prompt_tokens,omitempty"`
	Messages     int    `json:"messages,omitempty"`
}

// ToolCall is one tool invocation a model asked for.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Usage counts tokens of one model call or a total. Input includes Cached and CacheWrite;
// Output includes Reasoning.
type Usage struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	Cached     int `json:"cached,omitempty"`
	CacheWrite int `json:"cache_write,omitempty"`
	Reasoning  int `json:"reasoning,omitempty"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{Input: u.Input + o.Input, Output: u.Output + o.Output, Cached: u.Cached + o.Cached,
		CacheWrite: u.CacheWrite + o.CacheWrite, Reasoning: u.Reasoning + o.Reasoning}
}

// ModelCompleted is a model's whole answer: reasoning, text, tool calls, usage and timing.
type ModelCompleted struct {
	Model     string      `json:"model"`
	Reasoning []Reasoning `json:"reasoning,omitempty"`
	Text      string      `json:"text,omitempty"`
	ToolCalls []ToolCall  `json:"tool_calls,omitempty"`
	Usage     Usage       `json:"usage"`
	Cost      float64     `json:"cost,omitempty"`
	// CostFrom is "provider" when the provider reported the call's cost itself; otherwise the
	// cost is the model's prices applied to the usage.
	CostFrom string `json:"cost_from,omitempty"`
	// Skipped is output of types exo does not use (a server tool's call and results,
	// citations, unknown deltas and events), with what the first of each type held, redacted.
	// Events recorded before contents were hold bare type names, read as records.
	Skipped    []Skipped `json:"skipped,omitempty"`
	TTFTMs     int64     `json:"ttft_ms"`
	DurationMs int64     `json:"duration_ms"`
	StopReason string    `json:"stop_reason"`
	// Cut is set when the answer stopped before the model finished it: what had streamed is
	// kept (see cut_events.go for the reasons). A cut answer's tool calls never run: they are
	// in CutCalls, not ToolCalls. Events recorded before cut answers were kept read as whole.
	Cut string `json:"cut,omitempty"`
	// UsageEstimated is set when Usage (and so Cost) is exo's estimate, not the provider's
	// count: a cut stream that ended before the provider sent its usage.
	UsageEstimated bool `json:"usage_estimated,omitempty"`
	// CutCalls are the tool calls a cut answer had begun; they were not run and are not sent
	// back to the model as calls.
	CutCalls []CutCall `json:"cut_calls,omitempty"`
}

// ModelFailed records a model call that ended without an answer.
type ModelFailed struct {
	Model     string `json:"model"`
	Error     string `json:"error"`
	Kind      string `json:"kind,omitempty"` // rate_limited, quota_exhausted, auth, stream_cut, malformed…
	Retryable bool   `json:"retryable"`
	// Type, Message and Status are the provider's own error type or code, its message and the
	// HTTP status (0 for an error inside a stream).
	Type    string `json:"type,omitempty"`
	Message string `json:"message,omitempty"`
	Status  int    `json:"status,omitempty"`
	// RetryAfterMs is the wait the provider asked for, if any.
	RetryAfterMs int64 `json:"retry_after_ms,omitempty"`
}

// ToolStarted records the start of a tool call.
type ToolStarted struct {
	CallID  string          `json:"call_id"`
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args,omitempty"`
	Summary string          `json:"summary,omitempty"`
}

// ToolCompleted records a tool call's result.
type ToolCompleted struct {
	CallID     string `json:"call_id"`
	Tool       string `json:"tool"`
	Output     string `json:"output"`
	IsError    bool   `json:"is_error,omitempty"`
	ExitCode   *int   `json:"exit_code,omitempty"`
	Killed     string `json:"killed,omitempty"` // timeout, cancelled
	Truncated  bool   `json:"truncated,omitempty"`
	TotalBytes int64  `json:"total_bytes,omitempty"`
	Artifact   string `json:"artifact,omitempty"`
	DurationMs int64  `json:"duration_ms"`
	Diff       string `json:"diff,omitempty"`
	// Interrupted is set when the harness closes a call that never completed (a crash).
	Interrupted bool `json:"interrupted,omitempty"`
}

// TaskStarted records a background command started with a handle.
type TaskStarted struct {
	TaskID  string `json:"task_id"`
	Command string `json:"command"`
	CallID  string `json:"call_id,omitempty"`
}

// TaskCompleted records a background command's end.
type TaskCompleted struct {
	TaskID     string `json:"task_id"`
	Command    string `json:"command,omitempty"`
	ExitCode   int    `json:"exit_code"`
	Killed     string `json:"killed,omitempty"`
	Artifact   string `json:"artifact,omitempty"`
	Tail       string `json:"tail,omitempty"`
	DurationMs int64  `json:"duration_ms"`
}

// ArtifactCreated records a blob stored for the session.
type ArtifactCreated struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// FileChange is one path changed between snapshots.
type FileChange struct {
	Path string `json:"path"`
	Kind string `json:"kind"` // added, modified, deleted, renamed
	From string `json:"from,omitempty"`
}

// WorkspaceSnapshot records the workspace tree after a tool call that changed files.
type WorkspaceSnapshot struct {
	Commit  string       `json:"commit"`
	Tree    string       `json:"tree,omitempty"`
	Changed []FileChange `json:"changed,omitempty"`
	Skipped []string     `json:"skipped,omitempty"`
	CallID  string       `json:"call_id,omitempty"`
	// External marks changes seen by the workspace watcher while the session was not working
	// (an editor, another process or a sibling sharing the workspace): they are recorded so
	// rewinds and forks restore them, but they do not count as the session's own changes.
	External bool `json:"external,omitempty"`
	// Baseline marks a session's first snapshot: the files as they were before it changed
	// anything (every file is "added" against nothing; none is the session's change).
	Baseline bool `json:"baseline,omitempty"`
}

// WorkspaceRestored records that the workspace files were put back to a snapshot.
type WorkspaceRestored struct {
	Commit  string       `json:"commit"`
	AtSeq   uint64       `json:"at_seq"`
	Changed []FileChange `json:"changed,omitempty"`
}

// SecretDenied records a refused attempt to reach a secret.
type SecretDenied struct {
	Name   string `json:"name,omitempty"`
	Tool   string `json:"tool,omitempty"`
	Reason string `json:"reason"`
}

// PolicyViolation records an action outside the session's policy or scope.
type PolicyViolation struct {
	Path   string `json:"path,omitempty"`
	Rule   string `json:"rule"`
	Action string `json:"action"` // refused, recorded, reverted
	Detail string `json:"detail,omitempty"`
}

// ApprovalRequested asks the user to approve a tool call.
type ApprovalRequested struct {
	CallID  string          `json:"call_id"`
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args,omitempty"`
	Summary string          `json:"summary,omitempty"`
}

// ApprovalResolved answers an approval request: once, always or deny.
type ApprovalResolved struct {
	CallID   string `json:"call_id"`
	Decision string `json:"decision"`
}

// CompactionApplied records a prune or summary that changes the prompt view, not the log.
type CompactionApplied struct {
	Kind    string `json:"kind"` // prune, summarize
	FromSeq uint64 `json:"from_seq"`
	ToSeq   uint64 `json:"to_seq"`
	Summary string `json:"summary,omitempty"`
	Tokens  int    `json:"tokens_before,omitempty"`
}

// TurnCancelled records a turn ended by the user (or by a hook, or at its step limit).
type TurnCancelled struct {
	Reason string `json:"reason"`
	// Hook names the hook event whose continue:false stopped the turn (Reason then holds its
	// stopReason, for the user: the model is told only that a hook stopped the turn).
	Hook string `json:"hook,omitempty"`
}

// SessionForked is the first own event of a session forked from another.
type SessionForked struct {
	FromSession string `json:"from_session"`
	// FromName is the source session's name when forked (shown instead of ids).
	FromName   string `json:"from_name,omitempty"`
	FromBranch string `json:"from_branch"`
	AtSeq      uint64 `json:"at_seq"`
	Name       string `json:"name"`
	Workspace  string `json:"workspace,omitempty"`
}

// SessionRewound is the first event of the new branch a rewind starts.
type SessionRewound struct {
	FromBranch  string `json:"from_branch"`
	AbandonedAt uint64 `json:"abandoned_head"`
	ToSeq       uint64 `json:"to_seq"`
}

// SessionSuspended, SessionResumed and SessionFinished are lifecycle events.
type SessionSuspended struct {
	Reason string `json:"reason,omitempty"`
}

// SessionResumed records a session taken up again.
type SessionResumed struct {
	Reason string `json:"reason,omitempty"`
}

// SessionFinished records the end of a session with its summary.
type SessionFinished struct {
	Summary string `json:"summary,omitempty"`
	Learned string `json:"learned,omitempty"`
}

// HandoffRecorded passes a finished session's summary to another.
type HandoffRecorded struct {
	From string `json:"from"`
	To   string `json:"to"`
	Note string `json:"note,omitempty"`
	// FromName and ToName are the sessions' names (records made before they were kept have none).
	FromName string `json:"from_name,omitempty"`
	ToName   string `json:"to_name,omitempty"`
}
