package harness

// The harness's names for the API's types and for the rooms' exported types and helpers, so
// that callers keep writing harness.X while X lives in harness/api or in a room below.

import (
	"exo/harness/api"
	"exo/harness/config"
	"exo/harness/eventlog"
	"exo/harness/models"
	"exo/harness/provider"
	"exo/harness/runtimes"
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

// Modes of a sandbox command, in the exo.sandbox.mode attribute of its span (see runtimes).
const (
	SandboxShell    = runtimes.SandboxShell
	SandboxTask     = runtimes.SandboxTask
	SandboxDetached = runtimes.SandboxDetached
)

// ErrNoArtifact means no artifact has the id (or the prefix matches none).
var ErrNoArtifact = eventlog.ErrNoArtifact

// StoreStats describes the store for diagnostics (see eventlog.StoreStats).
type StoreStats = eventlog.StoreStats

// ConfigDir is exo's folder in the user's configuration (see config.Dir).
func ConfigDir() string { return config.Dir() }

// InsideWarning says, when workspace holds one of exo's own folders dirs, what exo does about
// it ("" when it holds none; see workspaces.InsideWarning).
func InsideWarning(workspace string, dirs []string) string {
	return workspaces.InsideWarning(workspace, dirs)
}

// Runtime is a session's live sandbox (see runtimes.Runtime).
type Runtime = runtimes.Runtime

// RunDetached is the body of a detached task's process, exo __task-run DIR (see
// runtimes.RunDetached).
func RunDetached(dir string) error { return runtimes.RunDetached(dir) }

// SandboxLimits reads the [sandbox] caps of the user's configuration file configFile (see
// runtimes.SandboxLimits).
func SandboxLimits(configFile string) (sandbox.Limits, error) {
	return runtimes.SandboxLimits(configFile)
}

// DefaultEnforcement says what a session with default settings runs under on this machine (see
// runtimes.DefaultEnforcement).
func DefaultEnforcement(caps sandbox.Capabilities) sandbox.Enforcement {
	return runtimes.DefaultEnforcement(caps)
}

// TypeSessionCreated is api.TypeSessionCreated.
const TypeSessionCreated = api.TypeSessionCreated

// TypeInvocationReceived is api.TypeInvocationReceived.
const TypeInvocationReceived = api.TypeInvocationReceived

// TypeStepStarted is api.TypeStepStarted.
const TypeStepStarted = api.TypeStepStarted

// TypeModelRequested is api.TypeModelRequested.
const TypeModelRequested = api.TypeModelRequested

// TypeModelCompleted is api.TypeModelCompleted.
const TypeModelCompleted = api.TypeModelCompleted

// TypeModelFailed is api.TypeModelFailed.
const TypeModelFailed = api.TypeModelFailed

// TypeToolStarted is api.TypeToolStarted.
const TypeToolStarted = api.TypeToolStarted

// TypeToolCompleted is api.TypeToolCompleted.
const TypeToolCompleted = api.TypeToolCompleted

// TypeTaskStarted is api.TypeTaskStarted.
const TypeTaskStarted = api.TypeTaskStarted

// TypeTaskCompleted is api.TypeTaskCompleted.
const TypeTaskCompleted = api.TypeTaskCompleted

// TypeArtifactCreated is api.TypeArtifactCreated.
const TypeArtifactCreated = api.TypeArtifactCreated

// TypeWorkspaceSnapshot is api.TypeWorkspaceSnapshot.
const TypeWorkspaceSnapshot = api.TypeWorkspaceSnapshot

// TypeWorkspaceRestored is api.TypeWorkspaceRestored.
const TypeWorkspaceRestored = api.TypeWorkspaceRestored

// TypeSecretDenied is api.TypeSecretDenied.
const TypeSecretDenied = api.TypeSecretDenied

// TypePolicyViolation is api.TypePolicyViolation.
const TypePolicyViolation = api.TypePolicyViolation

// TypeApprovalRequested is api.TypeApprovalRequested.
const TypeApprovalRequested = api.TypeApprovalRequested

// TypeApprovalResolved is api.TypeApprovalResolved.
const TypeApprovalResolved = api.TypeApprovalResolved

// TypeCompactionApplied is api.TypeCompactionApplied.
const TypeCompactionApplied = api.TypeCompactionApplied

// TypeTurnCancelled is api.TypeTurnCancelled.
const TypeTurnCancelled = api.TypeTurnCancelled

// TypeSessionForked is api.TypeSessionForked.
const TypeSessionForked = api.TypeSessionForked

// TypeSessionRewound is api.TypeSessionRewound.
const TypeSessionRewound = api.TypeSessionRewound

// TypeSessionSuspended is api.TypeSessionSuspended.
const TypeSessionSuspended = api.TypeSessionSuspended

// TypeSessionResumed is api.TypeSessionResumed.
const TypeSessionResumed = api.TypeSessionResumed

// TypeSessionFinished is api.TypeSessionFinished.
const TypeSessionFinished = api.TypeSessionFinished

// TypeHandoffRecorded is api.TypeHandoffRecorded.
const TypeHandoffRecorded = api.TypeHandoffRecorded

// ActorUser is api.ActorUser.
const ActorUser = api.ActorUser

// ActorHarness is api.ActorHarness.
const ActorHarness = api.ActorHarness

// ExecutorActor is api.ExecutorActor.
func ExecutorActor(name string) string { return api.ExecutorActor(name) }

// ToolActor is api.ToolActor.
func ToolActor(name string) string { return api.ToolActor(name) }

// SessionCreated is api.SessionCreated.
type SessionCreated = api.SessionCreated

// InvocationReceived is api.InvocationReceived.
type InvocationReceived = api.InvocationReceived

// StepStarted is api.StepStarted.
type StepStarted = api.StepStarted

// ModelRequested is api.ModelRequested.
type ModelRequested = api.ModelRequested

// ToolCall is api.ToolCall.
type ToolCall = api.ToolCall

// Usage is api.Usage.
type Usage = api.Usage

// ModelCompleted is api.ModelCompleted.
type ModelCompleted = api.ModelCompleted

// ModelFailed is api.ModelFailed.
type ModelFailed = api.ModelFailed

// ToolStarted is api.ToolStarted.
type ToolStarted = api.ToolStarted

// ToolCompleted is api.ToolCompleted.
type ToolCompleted = api.ToolCompleted

// TaskStarted is api.TaskStarted.
type TaskStarted = api.TaskStarted

// TaskCompleted is api.TaskCompleted.
type TaskCompleted = api.TaskCompleted

// ArtifactCreated is api.ArtifactCreated.
type ArtifactCreated = api.ArtifactCreated

// FileChange is api.FileChange.
type FileChange = api.FileChange

// WorkspaceSnapshot is api.WorkspaceSnapshot.
type WorkspaceSnapshot = api.WorkspaceSnapshot

// WorkspaceRestored is api.WorkspaceRestored.
type WorkspaceRestored = api.WorkspaceRestored

// SecretDenied is api.SecretDenied.
type SecretDenied = api.SecretDenied

// PolicyViolation is api.PolicyViolation.
type PolicyViolation = api.PolicyViolation

// ApprovalRequested is api.ApprovalRequested.
type ApprovalRequested = api.ApprovalRequested

// ApprovalResolved is api.ApprovalResolved.
type ApprovalResolved = api.ApprovalResolved

// CompactionApplied is api.CompactionApplied.
type CompactionApplied = api.CompactionApplied

// TurnCancelled is api.TurnCancelled.
type TurnCancelled = api.TurnCancelled

// SessionForked is api.SessionForked.
type SessionForked = api.SessionForked

// SessionRewound is api.SessionRewound.
type SessionRewound = api.SessionRewound

// SessionSuspended is api.SessionSuspended.
type SessionSuspended = api.SessionSuspended

// SessionResumed is api.SessionResumed.
type SessionResumed = api.SessionResumed

// SessionFinished is api.SessionFinished.
type SessionFinished = api.SessionFinished

// HandoffRecorded is api.HandoffRecorded.
type HandoffRecorded = api.HandoffRecorded

// TypeInfo is api.TypeInfo.
type TypeInfo = api.TypeInfo

// FamilySession is api.FamilySession.
const FamilySession = api.FamilySession

// FamilyUser is api.FamilyUser.
const FamilyUser = api.FamilyUser

// FamilyModel is api.FamilyModel.
const FamilyModel = api.FamilyModel

// FamilyTool is api.FamilyTool.
const FamilyTool = api.FamilyTool

// FamilyWorkspace is api.FamilyWorkspace.
const FamilyWorkspace = api.FamilyWorkspace

// FamilyPolicy is api.FamilyPolicy.
const FamilyPolicy = api.FamilyPolicy

// FamilyError is api.FamilyError.
const FamilyError = api.FamilyError

// RegisterType is api.RegisterType.
func RegisterType(name string, info api.TypeInfo) { api.RegisterType(name, info) }

// LookupType is api.LookupType.
func LookupType(name string) (api.TypeInfo, bool) { return api.LookupType(name) }

// TypeNames is api.TypeNames.
func TypeNames() []string { return api.TypeNames() }

// Decode is api.Decode.
func Decode(e api.Event) (any, error) { return api.Decode(e) }

// Summary is api.Summary.
func Summary(e api.Event) string { return api.Summary(e) }

// Family is api.Family.
func Family(typ string) string { return api.Family(typ) }

// Status is api.Status.
type Status = api.Status

// StatusIdle is api.StatusIdle.
const StatusIdle = api.StatusIdle

// StatusPending is api.StatusPending.
const StatusPending = api.StatusPending

// StatusRunning is api.StatusRunning.
const StatusRunning = api.StatusRunning

// StatusWaiting is api.StatusWaiting.
const StatusWaiting = api.StatusWaiting

// StatusFailed is api.StatusFailed.
const StatusFailed = api.StatusFailed

// StatusFinished is api.StatusFinished.
const StatusFinished = api.StatusFinished

// StatusSuspended is api.StatusSuspended.
const StatusSuspended = api.StatusSuspended

// ItemKind is api.ItemKind.
type ItemKind = api.ItemKind

// ItemUser is api.ItemUser.
const ItemUser = api.ItemUser

// ItemAssistant is api.ItemAssistant.
const ItemAssistant = api.ItemAssistant

// ItemThinking is api.ItemThinking.
const ItemThinking = api.ItemThinking

// ItemTool is api.ItemTool.
const ItemTool = api.ItemTool

// ItemNotice is api.ItemNotice.
const ItemNotice = api.ItemNotice

// ItemDenied is api.ItemDenied.
const ItemDenied = api.ItemDenied

// ItemViolation is api.ItemViolation.
const ItemViolation = api.ItemViolation

// ItemError is api.ItemError.
const ItemError = api.ItemError

// ItemPlan is api.ItemPlan.
const ItemPlan = api.ItemPlan

// Item is api.Item.
type Item = api.Item

// SessionState is api.SessionState.
type SessionState = api.SessionState

// NewSessionState is api.NewSessionState.
func NewSessionState(branch string) *api.SessionState { return api.NewSessionState(branch) }

// TypeExecutorMode is api.TypeExecutorMode.
const TypeExecutorMode = api.TypeExecutorMode

// TypeAgentPlan is api.TypeAgentPlan.
const TypeAgentPlan = api.TypeAgentPlan

// TypeAgentUsage is api.TypeAgentUsage.
const TypeAgentUsage = api.TypeAgentUsage

// TypeAgentDiff is api.TypeAgentDiff.
const TypeAgentDiff = api.TypeAgentDiff

// TypeAgentCommands is api.TypeAgentCommands.
const TypeAgentCommands = api.TypeAgentCommands

// TypeAgentWarning is api.TypeAgentWarning.
const TypeAgentWarning = api.TypeAgentWarning

// TypeAgentSession is api.TypeAgentSession.
const TypeAgentSession = api.TypeAgentSession

// ModeByExo is api.ModeByExo.
const ModeByExo = api.ModeByExo

// ModeByUser is api.ModeByUser.
const ModeByUser = api.ModeByUser

// ModeByAgent is api.ModeByAgent.
const ModeByAgent = api.ModeByAgent

// ExecutorMode is api.ExecutorMode.
type ExecutorMode = api.ExecutorMode

// PlanStep is api.PlanStep.
type PlanStep = api.PlanStep

// AgentPlan is api.AgentPlan.
type AgentPlan = api.AgentPlan

// AgentUsage is api.AgentUsage.
type AgentUsage = api.AgentUsage

// AgentDiff is api.AgentDiff.
type AgentDiff = api.AgentDiff

// AgentCommand is api.AgentCommand.
type AgentCommand = api.AgentCommand

// AgentCommands is api.AgentCommands.
type AgentCommands = api.AgentCommands

// AgentWarning is api.AgentWarning.
type AgentWarning = api.AgentWarning

// AgentSession is api.AgentSession.
type AgentSession = api.AgentSession

// CutDiff is api.CutDiff.
func CutDiff(d string) string { return api.CutDiff(d) }

// DiffFiles is api.DiffFiles.
func DiffFiles(diff string) []string { return api.DiffFiles(diff) }

// PlanChecklist is api.PlanChecklist.
func PlanChecklist(p *api.AgentPlan) string { return api.PlanChecklist(p) }

// TypeBudgetWarning is api.TypeBudgetWarning.
const TypeBudgetWarning = api.TypeBudgetWarning

// TypeBudgetExceeded is api.TypeBudgetExceeded.
const TypeBudgetExceeded = api.TypeBudgetExceeded

// SettingBudgetTokens is api.SettingBudgetTokens.
const SettingBudgetTokens = api.SettingBudgetTokens

// SettingBudgetCost is api.SettingBudgetCost.
const SettingBudgetCost = api.SettingBudgetCost

// BudgetWarning is api.BudgetWarning.
type BudgetWarning = api.BudgetWarning

// BudgetExceeded is api.BudgetExceeded.
type BudgetExceeded = api.BudgetExceeded

// TypeCompactionCost is api.TypeCompactionCost.
const TypeCompactionCost = api.TypeCompactionCost

// CompactionCost is api.CompactionCost.
type CompactionCost = api.CompactionCost

// TypeExecutorSelected is api.TypeExecutorSelected.
const TypeExecutorSelected = api.TypeExecutorSelected

// TypeExecutorStarted is api.TypeExecutorStarted.
const TypeExecutorStarted = api.TypeExecutorStarted

// TypeExecutorResult is api.TypeExecutorResult.
const TypeExecutorResult = api.TypeExecutorResult

// TypeExecutorFailed is api.TypeExecutorFailed.
const TypeExecutorFailed = api.TypeExecutorFailed

// DefaultExecutorName is api.DefaultExecutorName.
const DefaultExecutorName = api.DefaultExecutorName

// ExecutorSelected is api.ExecutorSelected.
type ExecutorSelected = api.ExecutorSelected

// ExecutorStarted is api.ExecutorStarted.
type ExecutorStarted = api.ExecutorStarted

// ExecutorResult is api.ExecutorResult.
type ExecutorResult = api.ExecutorResult

// ExecutorFailed is api.ExecutorFailed.
type ExecutorFailed = api.ExecutorFailed

// ExoMCPServer is api.ExoMCPServer.
const ExoMCPServer = api.ExoMCPServer

// ExoToolName is api.ExoToolName.
func ExoToolName(name string) string { return api.ExoToolName(name) }

// AgentToolName is api.AgentToolName.
func AgentToolName(name string) string { return api.AgentToolName(name) }

// TypeMCPServer is api.TypeMCPServer.
const TypeMCPServer = api.TypeMCPServer

// TypeHookRun is api.TypeHookRun.
const TypeHookRun = api.TypeHookRun

// MCPConnected is api.MCPConnected.
const MCPConnected = api.MCPConnected

// MCPFailed is api.MCPFailed.
const MCPFailed = api.MCPFailed

// MCPCrashed is api.MCPCrashed.
const MCPCrashed = api.MCPCrashed

// MCPHung is api.MCPHung.
const MCPHung = api.MCPHung

// MCPStopped is api.MCPStopped.
const MCPStopped = api.MCPStopped

// MCPServer is api.MCPServer.
type MCPServer = api.MCPServer

// HookRun is api.HookRun.
type HookRun = api.HookRun

// TypeTurnInterrupted is api.TypeTurnInterrupted.
const TypeTurnInterrupted = api.TypeTurnInterrupted

// StatusInterrupted is api.StatusInterrupted.
const StatusInterrupted = api.StatusInterrupted

// TurnInterrupted is api.TurnInterrupted.
type TurnInterrupted = api.TurnInterrupted

// TypeTurnStepLimit is api.TypeTurnStepLimit.
const TypeTurnStepLimit = api.TypeTurnStepLimit

// StopStepLimit is api.StopStepLimit.
const StopStepLimit = api.StopStepLimit

// TurnStepLimit is api.TurnStepLimit.
type TurnStepLimit = api.TurnStepLimit

// TypeSubagentSpawned is api.TypeSubagentSpawned.
const TypeSubagentSpawned = api.TypeSubagentSpawned

// TypeSubagentStarted is api.TypeSubagentStarted.
const TypeSubagentStarted = api.TypeSubagentStarted

// TypeSubagentCompleted is api.TypeSubagentCompleted.
const TypeSubagentCompleted = api.TypeSubagentCompleted

// SettingDepth is api.SettingDepth.
const SettingDepth = api.SettingDepth

// SubagentSpawned is api.SubagentSpawned.
type SubagentSpawned = api.SubagentSpawned

// SubagentStarted is api.SubagentStarted.
type SubagentStarted = api.SubagentStarted

// SubagentCompleted is api.SubagentCompleted.
type SubagentCompleted = api.SubagentCompleted

// TypeModelSide is api.TypeModelSide.
const TypeModelSide = api.TypeModelSide

// SideTitle is api.SideTitle.
const SideTitle = api.SideTitle

// SideCompaction is api.SideCompaction.
const SideCompaction = api.SideCompaction

// SideSubagent is api.SideSubagent.
const SideSubagent = api.SideSubagent

// SideQuota is api.SideQuota.
const SideQuota = api.SideQuota

// SideOther is api.SideOther.
const SideOther = api.SideOther

// ModelSide is api.ModelSide.
type ModelSide = api.ModelSide

// CutSideText is api.CutSideText.
func CutSideText(s string) string { return api.CutSideText(s) }

// TypeSessionArchived is api.TypeSessionArchived.
const TypeSessionArchived = api.TypeSessionArchived

// TypeSessionDeleted is api.TypeSessionDeleted.
const TypeSessionDeleted = api.TypeSessionDeleted

// SessionArchived is api.SessionArchived.
type SessionArchived = api.SessionArchived

// SessionDeleted is api.SessionDeleted.
type SessionDeleted = api.SessionDeleted

// Attachment is api.Attachment.
type Attachment = api.Attachment

// MaxAttachBytes is api.MaxAttachBytes.
const MaxAttachBytes = api.MaxAttachBytes

// MaxImageBytes is api.MaxImageBytes.
const MaxImageBytes = api.MaxImageBytes

// Reasoning is one part of a model's reasoning, recorded as the API sent it (api.Reasoning).
type Reasoning = api.Reasoning

// TypeInstructionsLoaded is api.TypeInstructionsLoaded.
const TypeInstructionsLoaded = api.TypeInstructionsLoaded

// InstructionsLoaded is api.InstructionsLoaded.
type InstructionsLoaded = api.InstructionsLoaded

// InstructionFile is api.InstructionFile.
type InstructionFile = api.InstructionFile

// StreamedAnswer is what a streaming answer had sent when last saved (eventlog.StreamedAnswer).
type StreamedAnswer = eventlog.StreamedAnswer
