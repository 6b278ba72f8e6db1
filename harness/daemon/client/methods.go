package client

import (
	"context"

	"exo/harness/api"
)

// The api.Client methods, each a call of its entry in api's method table (harness/api's
// methods.go says what each does).

// ListSessions returns every session with its state.
func (c *Client) ListSessions(ctx context.Context) ([]api.SessionInfo, error) {
	return call(ctx, c, api.MethodListSessions, api.Empty{})
}

// Session resolves a reference.
func (c *Client) Session(ctx context.Context, ref string) (*api.Session, error) {
	return call(ctx, c, api.MethodSession, api.Ref{Ref: ref})
}

// TakeOver makes another daemon's session this daemon's.
func (c *Client) TakeOver(ctx context.Context, ref string) (*api.Session, error) {
	return call(ctx, c, api.MethodTakeOver, api.Ref{Ref: ref})
}

// NewSession creates a session.
func (c *Client) NewSession(ctx context.Context, req api.NewSessionRequest) (*api.Session, error) {
	return call(ctx, c, api.MethodNewSession, req)
}

// SetSetting sets a session setting.
func (c *Client) SetSetting(ctx context.Context, sessionID, key, value string) (*api.Session, error) {
	return call(ctx, c, api.MethodSetSetting, api.SettingRequest{Session: sessionID, Key: key, Value: value})
}

// Fork forks a session.
func (c *Client) Fork(ctx context.Context, req api.ForkRequest) (*api.Session, error) {
	return call(ctx, c, api.MethodFork, req)
}

// Rewind rewinds a session.
func (c *Client) Rewind(ctx context.Context, sessionID string, seq uint64) (*api.Session, error) {
	return call(ctx, c, api.MethodRewind, api.SeqRequest{Session: sessionID, Seq: seq})
}

// RewindPreview says what a rewind would undo.
func (c *Client) RewindPreview(ctx context.Context, sessionID string, seq uint64) (api.RewindPlan, error) {
	return call(ctx, c, api.MethodRewindPreview, api.SeqRequest{Session: sessionID, Seq: seq})
}

// Files lists the session's workspace for @path completion.
func (c *Client) Files(ctx context.Context, sessionID string) ([]string, error) {
	return call(ctx, c, api.MethodFiles, api.SessionRef{Session: sessionID})
}

// Say appends a user message.
func (c *Client) Say(ctx context.Context, sessionID, text, source string) (api.Event, error) {
	return call(ctx, c, api.MethodSay, api.SayRequest{Session: sessionID, Text: text, Source: source})
}

// State returns a branch's projection at its head.
func (c *Client) State(ctx context.Context, branch string) (*api.SessionState, error) {
	return call(ctx, c, api.MethodState, api.StateRequest{Branch: branch})
}

// StateAt returns a branch's projection as of seq.
func (c *Client) StateAt(ctx context.Context, branch string, seq uint64) (*api.SessionState, error) {
	return call(ctx, c, api.MethodState, api.StateRequest{Branch: branch, Seq: &seq})
}

// Events returns events of a branch's history.
func (c *Client) Events(ctx context.Context, branch string, from, to uint64) ([]api.Event, error) {
	return call(ctx, c, api.MethodEvents, api.EventsRequest{Branch: branch, From: from, To: to})
}

// BranchPoints counts forks and rewinds per seq.
func (c *Client) BranchPoints(ctx context.Context, branch string) (map[uint64]int, error) {
	return call(ctx, c, api.MethodBranchPoints, api.BranchRef{Branch: branch})
}

// Verify recomputes hash chains.
func (c *Client) Verify(ctx context.Context, sessionID string) (api.VerifyReport, error) {
	return call(ctx, c, api.MethodVerify, api.SessionRef{Session: sessionID})
}

// FileAtSnapshot returns a file as the session's newest snapshot holds it.
func (c *Client) FileAtSnapshot(ctx context.Context, sessionID, path string) (string, error) {
	out, err := call(ctx, c, api.MethodFileAtSnapshot, api.FileRequest{Session: sessionID, Path: path})
	return out.Text, err
}

// StartTurn starts a turn.
func (c *Client) StartTurn(ctx context.Context, req api.TurnRequest) (api.TurnStarted, error) {
	return call(ctx, c, api.MethodStartTurn, req)
}

// WaitTurn waits for a turn's result.
func (c *Client) WaitTurn(ctx context.Context, sessionID, turnID string) (api.TurnResult, error) {
	return call(ctx, c, api.MethodWaitTurn, api.WaitRequest{Session: sessionID, Turn: turnID})
}

// CancelTurn cancels the running turn.
func (c *Client) CancelTurn(ctx context.Context, sessionID string) error {
	return empty(ctx, c, api.MethodCancelTurn, api.SessionRef{Session: sessionID})
}

// Unqueue takes back a prompt queued while a turn runs.
func (c *Client) Unqueue(ctx context.Context, sessionID, promptID string) error {
	return empty(ctx, c, api.MethodUnqueue, api.UnqueueRequest{Session: sessionID, Prompt: promptID})
}

// SelectExecutor makes an executor the session's.
func (c *Client) SelectExecutor(ctx context.Context, sessionID, name string) (api.ExecutorInfo, error) {
	return call(ctx, c, api.MethodSelectExecutor, api.ExecutorRequest{Session: sessionID, Name: name})
}

// Approve answers an approval.
func (c *Client) Approve(ctx context.Context, sessionID, callID, decision string) error {
	return empty(ctx, c, api.MethodApprove, api.ApproveRequest{Session: sessionID, CallID: callID, Decision: decision})
}

// Gate decides whether an action another agent asks for may run in a session.
func (c *Client) Gate(ctx context.Context, req api.GateRequest) (api.GateResult, error) {
	return call(ctx, c, api.MethodGate, req)
}

// Compact compacts a session's prompt view.
func (c *Client) Compact(ctx context.Context, sessionID string) (api.CompactionReport, error) {
	return call(ctx, c, api.MethodCompact, api.SessionRef{Session: sessionID})
}

// Enforcement reports a session's sandbox policy.
func (c *Client) Enforcement(ctx context.Context, sessionID string) (api.EnforcementInfo, error) {
	return call(ctx, c, api.MethodEnforcement, api.SessionRef{Session: sessionID})
}

// StartTask starts a detached task.
func (c *Client) StartTask(ctx context.Context, sessionID, command string) (api.DetachedTask, error) {
	return call(ctx, c, api.MethodStartTask, api.TaskRequest{Session: sessionID, Command: command})
}

// Tasks lists detached tasks.
func (c *Client) Tasks(ctx context.Context) ([]api.DetachedTask, error) {
	return call(ctx, c, api.MethodTasks, api.Empty{})
}

// KillTask kills a detached task.
func (c *Client) KillTask(ctx context.Context, taskID string) error {
	return empty(ctx, c, api.MethodKillTask, api.IDRef{ID: taskID})
}

// Models lists models.
func (c *Client) Models(ctx context.Context) (api.ModelList, error) {
	return call(ctx, c, api.MethodModels, api.Empty{})
}

// Model resolves a model.
func (c *Client) Model(ctx context.Context, name string) (api.ModelSpec, error) {
	return call(ctx, c, api.MethodModel, api.NameRef{Name: name})
}

// RegisterModel registers a model.
func (c *Client) RegisterModel(ctx context.Context, spec api.ModelSpec) (api.ModelSpec, error) {
	return call(ctx, c, api.MethodRegisterModel, spec)
}

// RemoveModel removes a model.
func (c *Client) RemoveModel(ctx context.Context, name string) error {
	return empty(ctx, c, api.MethodRemoveModel, api.NameRef{Name: name})
}

// SetDefaultModel chooses the default model.
func (c *Client) SetDefaultModel(ctx context.Context, name string) error {
	return empty(ctx, c, api.MethodSetDefaultModel, api.NameRef{Name: name})
}

// RemoteModels asks endpoints which models they serve.
func (c *Client) RemoteModels(ctx context.Context, q api.RemoteQuery) (api.RemoteModels, error) {
	return call(ctx, c, api.MethodRemoteModels, q)
}

// SetSecret seals a secret.
func (c *Client) SetSecret(ctx context.Context, name string, value []byte) error {
	return empty(ctx, c, api.MethodSetSecret, api.SecretRequest{Name: name, Value: value})
}

// Secrets lists sealed secrets.
func (c *Client) Secrets(ctx context.Context) ([]api.SecretInfo, error) {
	return call(ctx, c, api.MethodSecrets, api.Empty{})
}

// RemoveSecret removes a secret.
func (c *Client) RemoveSecret(ctx context.Context, name string) error {
	return empty(ctx, c, api.MethodRemoveSecret, api.NameRef{Name: name})
}

// Scope returns a session's scope.
func (c *Client) Scope(ctx context.Context, sessionID string) (api.Scope, error) {
	return call(ctx, c, api.MethodScope, api.SessionRef{Session: sessionID})
}

// SetScope replaces a session's scope.
func (c *Client) SetScope(ctx context.Context, sessionID string, sc api.Scope, reason string) (api.Scope, error) {
	return call(ctx, c, api.MethodSetScope, api.SetScopeRequest{Session: sessionID, Scope: sc, Reason: reason})
}

// Drift reports drift and conflicts.
func (c *Client) Drift(ctx context.Context, sessionID string) (api.DriftReport, error) {
	return call(ctx, c, api.MethodDrift, api.SessionRef{Session: sessionID})
}

// ConflictDiff renders conflict diffs.
func (c *Client) ConflictDiff(ctx context.Context, sessionID, with string) (string, error) {
	out, err := call(ctx, c, api.MethodConflictDiff, api.ConflictRequest{Session: sessionID, With: with})
	return out.Diff, err
}

// Finish finishes a session.
func (c *Client) Finish(ctx context.Context, req api.FinishRequest) (*api.Memento, error) {
	return call(ctx, c, api.MethodFinish, req)
}

// Handoff hands a session to another.
func (c *Client) Handoff(ctx context.Context, req api.HandoffRequest) (*api.HandoffResult, error) {
	return call(ctx, c, api.MethodHandoff, req)
}

// Doctor reports the harness's state.
func (c *Client) Doctor(ctx context.Context, workspace string) (api.DoctorReport, error) {
	return call(ctx, c, api.MethodDoctor, api.WorkspaceRef{Workspace: workspace})
}

// Commands lists the custom slash commands a workspace offers.
func (c *Client) Commands(ctx context.Context, workspace string) ([]api.CommandInfo, error) {
	return call(ctx, c, api.MethodCommands, api.WorkspaceRef{Workspace: workspace})
}

// MCPStatus lists the MCP servers configured for a workspace.
func (c *Client) MCPStatus(ctx context.Context, workspace string, check bool) ([]api.MCPStatus, error) {
	return call(ctx, c, api.MethodMCPStatus, api.MCPRequest{Workspace: workspace, Check: check})
}

// ProjectTrust reports a project's code and whether the user trusts it.
func (c *Client) ProjectTrust(ctx context.Context, workspace string) (api.ProjectTrust, error) {
	return call(ctx, c, api.MethodProjectTrust, api.WorkspaceRef{Workspace: workspace})
}

// Trust records the user's trust in a project's files as reviewed, or revokes it.
func (c *Client) Trust(ctx context.Context, req api.TrustRequest) (api.ProjectTrust, error) {
	return call(ctx, c, api.MethodTrust, req)
}

// Redact replaces sealed secrets' values in text.
func (c *Client) Redact(ctx context.Context, text string) (string, error) {
	out, err := call(ctx, c, api.MethodRedact, api.Text{Text: text})
	return out.Text, err
}

// Activity reports what runs.
func (c *Client) Activity(ctx context.Context) (api.Activity, error) {
	return call(ctx, c, api.MethodActivity, api.Empty{})
}

// Attach counts a watch as a client of a session.
func (c *Client) Attach(ctx context.Context, watchID, sessionID string) error {
	return empty(ctx, c, api.MethodAttach, api.AttachRequest{Watch: watchID, Session: sessionID})
}

// ArchiveSession hides a session from lists (or brings it back).
func (c *Client) ArchiveSession(ctx context.Context, ref string, archived bool) (*api.Session, error) {
	return call(ctx, c, api.MethodArchiveSession, api.ArchiveRequest{Ref: ref, Archived: archived})
}

// RemoveSession deletes a session.
func (c *Client) RemoveSession(ctx context.Context, ref string) (api.RemoveResult, error) {
	return call(ctx, c, api.MethodRemoveSession, api.Ref{Ref: ref})
}

// GC lists or removes the folders no live session uses.
func (c *Client) GC(ctx context.Context, dryRun bool) (api.GCReport, error) {
	return call(ctx, c, api.MethodGC, api.GCRequest{DryRun: dryRun})
}

// Backup writes a consistent copy of the event store.
func (c *Client) Backup(ctx context.Context, path string) (api.BackupResult, error) {
	return call(ctx, c, api.MethodBackup, api.BackupRequest{Path: path})
}

// StartAttempts starts several attempts at one prompt.
func (c *Client) StartAttempts(ctx context.Context, req api.AttemptsRequest) (api.AttemptSet, error) {
	return call(ctx, c, api.MethodStartAttempts, req)
}

// AttemptSet returns an attempt set's scoreboard.
func (c *Client) AttemptSet(ctx context.Context, ref string) (api.AttemptSet, error) {
	return call(ctx, c, api.MethodAttemptSet, api.Ref{Ref: ref})
}

// KeepAttempt keeps one attempt of a set.
func (c *Client) KeepAttempt(ctx context.Context, req api.KeepRequest) (api.KeepResult, error) {
	return call(ctx, c, api.MethodKeepAttempt, req)
}

// Replay replays a session's recorded prompts under another executor or model.
func (c *Client) Replay(ctx context.Context, req api.ReplayRequest) (api.AttemptSet, error) {
	return call(ctx, c, api.MethodReplay, req)
}

// PasteImage stores an image pasted from the clipboard and returns its mention.
func (c *Client) PasteImage(ctx context.Context, req api.PasteImageRequest) (api.PastedImage, error) {
	return call(ctx, c, api.MethodPasteImage, req)
}
