package harness

import (
	"exo/harness/api"
	"exo/harness/eventlog"
	"exo/harness/models"
	"exo/harness/provider"
	"exo/harness/sessions"
	"exo/harness/workspaces"
	"exo/sandbox"
	"exo/store"
)

// Session is api.Session.
type Session = api.Session

// ModelSpec is api.ModelSpec.
type ModelSpec = api.ModelSpec

// ThinkingOff is api.ThinkingOff.
const ThinkingOff = api.ThinkingOff

// RemoteQuery is api.RemoteQuery.
type RemoteQuery = api.RemoteQuery

// RemoteModel is api.RemoteModel.
type RemoteModel = api.RemoteModel

// TurnResult is api.TurnResult.
type TurnResult = api.TurnResult

// TurnNotice is api.TurnNotice.
type TurnNotice = api.TurnNotice

// Notice is api.Notice.
type Notice = api.Notice

// Progress is api.Progress.
type Progress = api.Progress

// DetachedTask is api.DetachedTask.
type DetachedTask = api.DetachedTask

// GCItem is api.GCItem.
type GCItem = api.GCItem

// GCReport is api.GCReport.
type GCReport = api.GCReport

// RecoveryReport is api.RecoveryReport.
type RecoveryReport = api.RecoveryReport

// Event is a committed event as the harness API hands it out, so the UI never imports the store.
type Event = api.Event

// Record is an event to append, as the harness API takes it.
type Record = store.Record

// Projection is anything folded from events one at a time.
type Projection = eventlog.Projection

// ErrBranchMoved means a session was rewound while a writer still held its old branch.
var ErrBranchMoved = eventlog.ErrBranchMoved

// StoreURLFile is the older user configuration, in EXO_HOME, that names the store (see
// eventlog.StoreURLFile).
const StoreURLFile = eventlog.StoreURLFile

// StoreURL returns the store location for home (see eventlog.StoreURL).
func StoreURL(home, option, configFile string) (string, error) {
	return eventlog.StoreURL(home, option, configFile)
}

// NewRecord encodes a typed payload into a store record.
func NewRecord(typ, actor string, payload any) (store.Record, error) {
	return eventlog.NewRecord(typ, actor, payload)
}

// MustRecord is NewRecord for payloads that always encode (plain structs).
func MustRecord(typ, actor string, payload any) store.Record {
	return eventlog.MustRecord(typ, actor, payload)
}

// NewID returns a 16-hex-digit id that sorts by creation time (seconds) and is unique.
func NewID() string { return eventlog.NewID() }

// NewName returns a memorable session name such as "aster-meadow-2e0e".
func NewName() string { return eventlog.NewName() }

// ModelCost prices a usage with a model's prices (see models.ModelCostOf).
func ModelCost(m ModelSpec, u provider.Usage) float64 { return models.ModelCost(m, u) }

// ModelCostOf prices a usage with a model's prices, telling whether the figure is the provider's
// own (see models.ModelCostOf).
func ModelCostOf(m ModelSpec, u provider.Usage) (cost float64, fromProvider bool) {
	return models.ModelCostOf(m, u)
}

// UsageOf converts a provider's usage into the usage recorded in events.
func UsageOf(u provider.Usage) Usage { return models.UsageOf(u) }

// ErrNoModel means no model is registered or named.
var ErrNoModel = models.ErrNoModel

// ErrNoSession means a session reference matched nothing; ErrAmbiguous that it matched several.
var (
	ErrNoSession = api.ErrNoSession
	ErrAmbiguous = api.ErrAmbiguous
)

// ErrBadSeq means a seq given for fork or rewind is not an event of the session's history.
var ErrBadSeq = api.ErrBadSeq

// ErrOrphaned means a session's daemon is gone and its workspace is not reachable here.
var ErrOrphaned = api.ErrOrphaned

// ErrNotOwner means another live daemon owns the session: only it appends to it.
var ErrNotOwner = store.ErrNotOwner

// VerifyReport is the outcome of a hash-chain check (see Verify).
type VerifyReport = api.VerifyReport

// NewSessionOptions describes a session to create (see sessions.NewSessionOptions).
type NewSessionOptions = sessions.NewSessionOptions

// ForkOptions describes a fork (see sessions.ForkOptions).
type ForkOptions = sessions.ForkOptions

// PeerSession is a session another daemon runs on a shared store (see sessions.PeerSession).
type PeerSession = sessions.PeerSession

// ProjectIDKey is the session setting that names a session's project (see sessions.ProjectIDKey).
const ProjectIDKey = sessions.ProjectIDKey

// ProjectID names the project of a workspace (see sessions.ProjectID).
func ProjectID(workspace string) string { return sessions.ProjectID(workspace) }

// Mentions lists the @mentions of a prompt (see sessions.Mentions).
func Mentions(text string) []string { return sessions.Mentions(text) }

// AttachmentsText renders attachments for the model (see sessions.AttachmentsText).
func AttachmentsText(as []Attachment) string { return sessions.AttachmentsText(as) }

// SnapshotHook is called after a workspace.snapshot is appended (see workspaces.SnapshotHook).
type SnapshotHook = workspaces.SnapshotHook

// ExecOptions tune one command run in a session's sandbox (see workspaces.ExecOptions).
type ExecOptions = workspaces.ExecOptions

// ExecResult is a finished command (see workspaces.ExecResult).
type ExecResult = workspaces.ExecResult

// ToolResultOf turns a sandbox result into a tool.completed payload.
func ToolResultOf(callID, tool string, r sandbox.Result) ToolCompleted {
	return workspaces.ToolResultOf(callID, tool, r)
}

// Modes of a sandbox command, in the exo.sandbox.mode attribute of its span (see workspaces).
const (
	SandboxShell    = workspaces.SandboxShell
	SandboxTask     = workspaces.SandboxTask
	SandboxDetached = workspaces.SandboxDetached
)
