package client

import (
	"context"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/executor"
	"exo/harness/executors"
	"exo/harness/governance"
	"exo/harness/mcp"
	"exo/harness/secrets"
)

// The api.Client methods, each a call of its entry in api's method table (harness/api's
// methods.go says what each does).

// ListSessions returns every session with its state.
func (c *Client) ListSessions(ctx context.Context) ([]api.SessionInfo, error) {
	return call(ctx, c, api.ListSessions, api.Empty{})
}

// Session resolves a reference.
func (c *Client) Session(ctx context.Context, ref string) (*harness.Session, error) {
	return call(ctx, c, api.Session, api.Ref{Ref: ref})
}

// TakeOver makes another daemon's session this daemon's.
func (c *Client) TakeOver(ctx context.Context, ref string) (*harness.Session, error) {
	return call(ctx, c, api.TakeOver, api.Ref{Ref: ref})
}

// NewSession creates a session.
func (c *Client) NewSession(ctx context.Context, req api.NewSessionRequest) (*harness.Session, error) {
	return call(ctx, c, api.NewSession, req)
}

// SetSetting sets a session setting.
func (c *Client) SetSetting(ctx context.Context, sessionID, key, value string) (*harness.Session, error) {
	return call(ctx, c, api.SetSetting, api.SettingRequest{Session: sessionID, Key: key, Value: value})
}

// Fork forks a session.
func (c *Client) Fork(ctx context.Context, req api.ForkRequest) (*harness.Session, error) {
	return call(ctx, c, api.Fork, req)
}

// Rewind rewinds a session.
func (c *Client) Rewind(ctx context.Context, sessionID string, seq uint64) (*harness.Session, error) {
	return call(ctx, c, api.Rewind, api.SeqRequest{Session: sessionID, Seq: seq})
}

// RewindPreview says what a rewind would undo.
func (c *Client) RewindPreview(ctx context.Context, sessionID string, seq uint64) (api.RewindPlan, error) {
	return call(ctx, c, api.RewindPreview, api.SeqRequest{Session: sessionID, Seq: seq})
}

// Files lists the session's workspace for @path completion.
func (c *Client) Files(ctx context.Context, sessionID string) ([]string, error) {
	return call(ctx, c, api.Files, api.SessionRef{Session: sessionID})
}

// Say appends a user message.
func (c *Client) Say(ctx context.Context, sessionID, text, source string) (harness.Event, error) {
	return call(ctx, c, api.Say, api.SayRequest{Session: sessionID, Text: text, Source: source})
}

// State returns a branch's projection at its head.
func (c *Client) State(ctx context.Context, branch string) (*harness.SessionState, error) {
	return call(ctx, c, api.State, api.StateRequest{Branch: branch})
}

// StateAt returns a branch's projection as of seq.
func (c *Client) StateAt(ctx context.Context, branch string, seq uint64) (*harness.SessionState, error) {
	return call(ctx, c, api.State, api.StateRequest{Branch: branch, Seq: &seq})
}

// Events returns events of a branch's history.
func (c *Client) Events(ctx context.Context, branch string, from, to uint64) ([]harness.Event, error) {
	return call(ctx, c, api.Events, api.EventsRequest{Branch: branch, From: from, To: to})
}

// BranchPoints counts forks and rewinds per seq.
func (c *Client) BranchPoints(ctx context.Context, branch string) (map[uint64]int, error) {
	return call(ctx, c, api.BranchPoints, api.BranchRef{Branch: branch})
}

// Verify recomputes hash chains.
func (c *Client) Verify(ctx context.Context, sessionID string) (harness.VerifyReport, error) {
	return call(ctx, c, api.Verify, api.SessionRef{Session: sessionID})
}

// FileAtSnapshot returns a file as the session's newest snapshot holds it.
func (c *Client) FileAtSnapshot(ctx context.Context, sessionID, path string) (string, error) {
	out, err := call(ctx, c, api.FileAtSnapshot, api.FileRequest{Session: sessionID, Path: path})
	return out.Text, err
}

// StartTurn starts a turn.
func (c *Client) StartTurn(ctx context.Context, req api.TurnRequest) (api.TurnStarted, error) {
	return call(ctx, c, api.StartTurn, req)
}

// WaitTurn waits for a turn's result.
func (c *Client) WaitTurn(ctx context.Context, sessionID, turnID string) (harness.TurnResult, error) {
	return call(ctx, c, api.WaitTurn, api.WaitRequest{Session: sessionID, Turn: turnID})
}

// CancelTurn cancels the running turn.
func (c *Client) CancelTurn(ctx context.Context, sessionID string) error {
	return empty(ctx, c, api.CancelTurn, api.SessionRef{Session: sessionID})
}

// SelectExecutor makes an executor the session's.
func (c *Client) SelectExecutor(ctx context.Context, sessionID, name string) (executors.Info, error) {
	return call(ctx, c, api.SelectExecutor, api.ExecutorRequest{Session: sessionID, Name: name})
}

// Approve answers an approval.
func (c *Client) Approve(ctx context.Context, sessionID, callID, decision string) error {
	return empty(ctx, c, api.Approve, api.ApproveRequest{Session: sessionID, CallID: callID, Decision: decision})
}

// Gate decides whether an action another agent asks for may run in a session.
func (c *Client) Gate(ctx context.Context, req api.GateRequest) (api.GateResult, error) {
	return call(ctx, c, api.Gate, req)
}

// Compact compacts a session's prompt view.
func (c *Client) Compact(ctx context.Context, sessionID string) (executor.CompactionReport, error) {
	return call(ctx, c, api.Compact, api.SessionRef{Session: sessionID})
}

// Enforcement reports a session's sandbox policy.
func (c *Client) Enforcement(ctx context.Context, sessionID string) (api.EnforcementInfo, error) {
	return call(ctx, c, api.Enforcement, api.SessionRef{Session: sessionID})
}

// StartTask starts a detached task.
func (c *Client) StartTask(ctx context.Context, sessionID, command string) (harness.DetachedTask, error) {
	return call(ctx, c, api.StartTask, api.TaskRequest{Session: sessionID, Command: command})
}

// Tasks lists detached tasks.
func (c *Client) Tasks(ctx context.Context) ([]harness.DetachedTask, error) {
	return call(ctx, c, api.Tasks, api.Empty{})
}

// KillTask kills a detached task.
func (c *Client) KillTask(ctx context.Context, taskID string) error {
	return empty(ctx, c, api.KillTask, api.IDRef{ID: taskID})
}

// Models lists models.
func (c *Client) Models(ctx context.Context) (api.ModelList, error) {
	return call(ctx, c, api.Models, api.Empty{})
}

// Model resolves a model.
func (c *Client) Model(ctx context.Context, name string) (harness.ModelSpec, error) {
	return call(ctx, c, api.Model, api.NameRef{Name: name})
}

// RegisterModel registers a model.
func (c *Client) RegisterModel(ctx context.Context, spec harness.ModelSpec) (harness.ModelSpec, error) {
	return call(ctx, c, api.RegisterModel, spec)
}

// RemoveModel removes a model.
func (c *Client) RemoveModel(ctx context.Context, name string) error {
	return empty(ctx, c, api.RemoveModel, api.NameRef{Name: name})
}

// SetDefaultModel chooses the default model.
func (c *Client) SetDefaultModel(ctx context.Context, name string) error {
	return empty(ctx, c, api.SetDefaultModel, api.NameRef{Name: name})
}

// RemoteModels asks endpoints which models they serve.
func (c *Client) RemoteModels(ctx context.Context, q harness.RemoteQuery) (api.RemoteModels, error) {
	return call(ctx, c, api.ListRemoteModels, q)
}

// SetSecret seals a secret.
func (c *Client) SetSecret(ctx context.Context, name string, value []byte) error {
	return empty(ctx, c, api.SetSecret, api.SecretRequest{Name: name, Value: value})
}

// Secrets lists sealed secrets.
func (c *Client) Secrets(ctx context.Context) ([]secrets.Info, error) {
	return call(ctx, c, api.Secrets, api.Empty{})
}

// RemoveSecret removes a secret.
func (c *Client) RemoveSecret(ctx context.Context, name string) error {
	return empty(ctx, c, api.RemoveSecret, api.NameRef{Name: name})
}

// Scope returns a session's scope.
func (c *Client) Scope(ctx context.Context, sessionID string) (governance.Scope, error) {
	return call(ctx, c, api.Scope, api.SessionRef{Session: sessionID})
}

// SetScope replaces a session's scope.
func (c *Client) SetScope(ctx context.Context, sessionID string, sc governance.Scope, reason string) (governance.Scope, error) {
	return call(ctx, c, api.SetScope, api.ScopeRequest{Session: sessionID, Scope: sc, Reason: reason})
}

// Drift reports drift and conflicts.
func (c *Client) Drift(ctx context.Context, sessionID string) (api.DriftReport, error) {
	return call(ctx, c, api.Drift, api.SessionRef{Session: sessionID})
}

// ConflictDiff renders conflict diffs.
func (c *Client) ConflictDiff(ctx context.Context, sessionID, with string) (string, error) {
	out, err := call(ctx, c, api.ConflictDiff, api.ConflictRequest{Session: sessionID, With: with})
	return out.Diff, err
}

// Finish finishes a session.
func (c *Client) Finish(ctx context.Context, req api.FinishRequest) (*governance.Memento, error) {
	return call(ctx, c, api.Finish, req)
}

// Handoff hands a session to another.
func (c *Client) Handoff(ctx context.Context, req api.HandoffRequest) (*api.HandoffResult, error) {
	return call(ctx, c, api.Handoff, req)
}

// Doctor reports the harness's state.
func (c *Client) Doctor(ctx context.Context, workspace string) (api.DoctorReport, error) {
	return call(ctx, c, api.Doctor, api.WorkspaceRef{Workspace: workspace})
}

// MCPStatus lists the MCP servers configured for a workspace.
func (c *Client) MCPStatus(ctx context.Context, workspace string, check bool) ([]mcp.Status, error) {
	return call(ctx, c, api.MCPStatus, api.MCPRequest{Workspace: workspace, Check: check})
}

// ProjectTrust reports a project's code and whether the user trusts it.
func (c *Client) ProjectTrust(ctx context.Context, workspace string) (api.ProjectTrust, error) {
	return call(ctx, c, api.GetProjectTrust, api.WorkspaceRef{Workspace: workspace})
}

// Trust records the user's trust in a project's files as reviewed, or revokes it.
func (c *Client) Trust(ctx context.Context, req api.TrustRequest) (api.ProjectTrust, error) {
	return call(ctx, c, api.Trust, req)
}

// Redact replaces sealed secrets' values in text.
func (c *Client) Redact(ctx context.Context, text string) (string, error) {
	out, err := call(ctx, c, api.Redact, api.Text{Text: text})
	return out.Text, err
}

// Activity reports what runs.
func (c *Client) Activity(ctx context.Context) (api.Activity, error) {
	return call(ctx, c, api.GetActivity, api.Empty{})
}

// Attach counts a watch as a client of a session.
func (c *Client) Attach(ctx context.Context, watchID, sessionID string) error {
	return empty(ctx, c, api.Attach, api.AttachRequest{Watch: watchID, Session: sessionID})
}

// ArchiveSession hides a session from lists (or brings it back).
func (c *Client) ArchiveSession(ctx context.Context, ref string, archived bool) (*harness.Session, error) {
	return call(ctx, c, api.ArchiveSession, api.ArchiveRequest{Ref: ref, Archived: archived})
}

// RemoveSession deletes a session.
func (c *Client) RemoveSession(ctx context.Context, ref string) (api.RemoveResult, error) {
	return call(ctx, c, api.RemoveSession, api.Ref{Ref: ref})
}

// GC lists or removes the folders no live session uses.
func (c *Client) GC(ctx context.Context, dryRun bool) (harness.GCReport, error) {
	return call(ctx, c, api.GC, api.GCRequest{DryRun: dryRun})
}

// Backup writes a consistent copy of the event store.
func (c *Client) Backup(ctx context.Context, path string) (api.BackupResult, error) {
	return call(ctx, c, api.Backup, api.BackupRequest{Path: path})
}
