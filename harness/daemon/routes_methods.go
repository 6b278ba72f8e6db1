package daemon

import (
	"context"
	"net/http"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/executor"
	"exo/harness/executors"
	"exo/harness/governance"
	"exo/harness/mcp"
	"exo/harness/secrets"
)

// Names of the answer types the service takes from other packages.
type (
	mcpStatus    = mcp.Status
	session      = harness.Session
	secretInfo   = secrets.Info
	executorInfo = executors.Info
)

// sessionRoutes maps sessions, branches and logs.
func (s *Server) sessionRoutes() {
	handle(s, api.MethodListSessions, func(ctx context.Context, _ api.Empty) ([]api.SessionInfo, error) { return s.svc.ListSessions(ctx) })
	handle(s, api.MethodNewSession, s.svc.NewSession)
	handle(s, api.MethodSession, func(ctx context.Context, q api.Ref) (*session, error) { return s.svc.Session(ctx, q.Ref) })
	handle(s, api.MethodTakeOver, func(ctx context.Context, q api.Ref) (*session, error) { return s.svc.TakeOver(ctx, q.Ref) })
	handle(s, api.MethodSetSetting, func(ctx context.Context, q api.SettingRequest) (*session, error) {
		return s.svc.SetSetting(ctx, q.Session, q.Key, q.Value)
	})
	handle(s, api.MethodFork, s.svc.Fork)
	handle(s, api.MethodRewind, func(ctx context.Context, q api.SeqRequest) (*session, error) {
		return s.svc.Rewind(ctx, q.Session, q.Seq)
	})
	handle(s, api.MethodRewindPreview, func(ctx context.Context, q api.SeqRequest) (api.RewindPlan, error) {
		return s.svc.RewindPreview(ctx, q.Session, q.Seq)
	})
	handle(s, api.MethodFiles, func(ctx context.Context, q api.SessionRef) ([]string, error) { return s.svc.Files(ctx, q.Session) })
	handle(s, api.MethodSay, func(ctx context.Context, q api.SayRequest) (harness.Event, error) {
		return s.svc.Say(ctx, q.Session, q.Text, q.Source)
	})
	handleWith(s, api.MethodTail, s.tail)
	handle(s, api.MethodFileAtSnapshot, func(ctx context.Context, q api.FileRequest) (api.Text, error) {
		text, err := s.svc.FileAtSnapshot(ctx, q.Session, q.Path)
		return api.Text{Text: text}, err
	})
	handle(s, api.MethodState, func(ctx context.Context, q api.StateRequest) (*harness.SessionState, error) {
		if q.Seq != nil {
			return s.svc.StateAt(ctx, q.Branch, *q.Seq)
		}
		return s.svc.State(ctx, q.Branch)
	})
	handle(s, api.MethodEvents, func(ctx context.Context, q api.EventsRequest) ([]harness.Event, error) {
		return s.svc.Events(ctx, q.Branch, max(q.From, 1), q.To)
	})
	handle(s, api.MethodBranchPoints, func(ctx context.Context, q api.BranchRef) (map[uint64]int, error) {
		return s.svc.BranchPoints(ctx, q.Branch)
	})
	handle(s, api.MethodVerify, func(ctx context.Context, q api.SessionRef) (harness.VerifyReport, error) {
		return s.svc.Verify(ctx, q.Session)
	})
	handleWith(s, api.MethodArtifact, func(w http.ResponseWriter, r *http.Request, q api.IDRef) error {
		rc, err := s.svc.Artifact(r.Context(), q.ID)
		if err != nil {
			return err
		}
		copyArtifact(w, rc)
		return nil
	})
}

// turnRoutes maps turns and approvals.
func (s *Server) turnRoutes() {
	handle(s, api.MethodStartTurn, s.svc.StartTurn)
	handle(s, api.MethodWaitTurn, func(ctx context.Context, q api.WaitRequest) (harness.TurnResult, error) {
		return s.svc.WaitTurn(ctx, q.Session, q.Turn)
	})
	handle(s, api.MethodSelectExecutor, func(ctx context.Context, q api.ExecutorRequest) (executorInfo, error) {
		return s.svc.SelectExecutor(ctx, q.Session, q.Name)
	})
	handleEmpty(s, api.MethodCancelTurn, func(ctx context.Context, q api.SessionRef) error { return s.svc.CancelTurn(ctx, q.Session) })
	handleEmpty(s, api.MethodUnqueue, func(ctx context.Context, q api.UnqueueRequest) error {
		return s.svc.Unqueue(ctx, q.Session, q.Prompt)
	})
	handleEmpty(s, api.MethodApprove, func(ctx context.Context, q api.ApproveRequest) error {
		return s.svc.Approve(ctx, q.Session, q.CallID, q.Decision)
	})
	handle(s, api.MethodGate, s.svc.Gate)
	handle(s, api.MethodCompact, func(ctx context.Context, q api.SessionRef) (executor.CompactionReport, error) {
		return s.svc.Compact(ctx, q.Session)
	})
}

// sandboxRoutes maps commands and background tasks.
func (s *Server) sandboxRoutes() {
	handleWith(s, api.MethodExec, s.exec)
	handle(s, api.MethodEnforcement, func(ctx context.Context, q api.SessionRef) (api.EnforcementInfo, error) {
		return s.svc.Enforcement(ctx, q.Session)
	})
	handle(s, api.MethodStartTask, func(ctx context.Context, q api.TaskRequest) (harness.DetachedTask, error) {
		return s.svc.StartTask(ctx, q.Session, q.Command)
	})
	handle(s, api.MethodTasks, func(ctx context.Context, _ api.Empty) ([]harness.DetachedTask, error) { return s.svc.Tasks(ctx) })
	handleWith(s, api.MethodTaskOutput, func(w http.ResponseWriter, r *http.Request, q api.IDRef) error {
		pw := &lazyWriter{w: w}
		if err := s.svc.TaskOutput(r.Context(), q.ID, pw); err != nil && !pw.started {
			return err
		}
		return nil
	})
	handleEmpty(s, api.MethodKillTask, func(ctx context.Context, q api.IDRef) error { return s.svc.KillTask(ctx, q.ID) })
}

// registryRoutes maps models and secrets.
func (s *Server) registryRoutes() {
	handle(s, api.MethodModels, func(ctx context.Context, _ api.Empty) (api.ModelList, error) { return s.svc.Models(ctx) })
	handle(s, api.MethodModel, func(ctx context.Context, q api.NameRef) (harness.ModelSpec, error) { return s.svc.Model(ctx, q.Name) })
	handle(s, api.MethodRegisterModel, s.svc.RegisterModel)
	handle(s, api.MethodRemoteModels, s.svc.RemoteModels)
	handleEmpty(s, api.MethodRemoveModel, func(ctx context.Context, q api.NameRef) error { return s.svc.RemoveModel(ctx, q.Name) })
	handleEmpty(s, api.MethodSetDefaultModel, func(ctx context.Context, q api.NameRef) error { return s.svc.SetDefaultModel(ctx, q.Name) })
	handle(s, api.MethodSecrets, func(ctx context.Context, _ api.Empty) ([]secretInfo, error) { return s.svc.Secrets(ctx) })
	handleEmpty(s, api.MethodSetSecret, func(ctx context.Context, q api.SecretRequest) error {
		err := s.svc.SetSecret(ctx, q.Name, q.Value)
		clear(q.Value)
		return err
	})
	handleEmpty(s, api.MethodRemoveSecret, func(ctx context.Context, q api.NameRef) error { return s.svc.RemoveSecret(ctx, q.Name) })
}

// governanceRoutes maps scope, drift and the end of a session's work.
func (s *Server) governanceRoutes() {
	handle(s, api.MethodScope, func(ctx context.Context, q api.SessionRef) (governance.Scope, error) {
		return s.svc.Scope(ctx, q.Session)
	})
	handle(s, api.MethodSetScope, func(ctx context.Context, q api.SetScopeRequest) (governance.Scope, error) {
		return s.svc.SetScope(ctx, q.Session, q.Scope, q.Reason)
	})
	handle(s, api.MethodDrift, func(ctx context.Context, q api.SessionRef) (api.DriftReport, error) {
		return s.svc.Drift(ctx, q.Session)
	})
	handle(s, api.MethodConflictDiff, func(ctx context.Context, q api.ConflictRequest) (api.Diff, error) {
		d, err := s.svc.ConflictDiff(ctx, q.Session, q.With)
		return api.Diff{Diff: d}, err
	})
	handle(s, api.MethodFinish, s.svc.Finish)
	handle(s, api.MethodHandoff, s.svc.Handoff)
}

// lifecycleRoutes maps archiving, removing and collecting.
func (s *Server) lifecycleRoutes() {
	handle(s, api.MethodArchiveSession, func(ctx context.Context, q api.ArchiveRequest) (*session, error) {
		return s.svc.ArchiveSession(ctx, q.Ref, q.Archived)
	})
	handle(s, api.MethodRemoveSession, func(ctx context.Context, q api.Ref) (api.RemoveResult, error) { return s.svc.RemoveSession(ctx, q.Ref) })
	handle(s, api.MethodGC, func(ctx context.Context, q api.GCRequest) (harness.GCReport, error) { return s.svc.GC(ctx, q.DryRun) })
	handle(s, api.MethodBackup, func(ctx context.Context, q api.BackupRequest) (api.BackupResult, error) {
		return s.svc.Backup(ctx, q.Path)
	})
}
