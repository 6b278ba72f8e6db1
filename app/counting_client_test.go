package app

import (
	"context"
	"io"
	"sort"
	"strings"
	"sync"

	"exo/harness/api"
)

// countingClient is an api.Client that counts the requests made through it, by method. It wraps
// every method itself (no embedding), so a method added to api.Client fails to compile here
// rather than go uncounted.
type countingClient struct {
	inner api.Client
	mu    sync.Mutex
	calls map[string]int
	log   []string
	// inflight counts the requests that have not returned yet.
	inflight int
}

// newCountingClient counts the requests made to inner.
func newCountingClient(inner api.Client) *countingClient {
	return &countingClient{inner: inner, calls: map[string]int{}}
}

// begin records one request as it starts; finish (given what begin returns) its end.
func (c *countingClient) begin(method string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[method]++
	c.log = append(c.log, method)
	c.inflight++
	return method
}

// finish records the end of a request begin recorded.
func (c *countingClient) finish(string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inflight--
}

// busy reports whether a request is on its way.
func (c *countingClient) busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inflight > 0
}

// reset forgets the requests counted so far.
func (c *countingClient) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls, c.log = map[string]int{}, nil
}

// snapshot returns the counts by method and their total.
func (c *countingClient) snapshot() (map[string]int, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.calls))
	for k, v := range c.calls {
		out[k] = v
	}
	return out, len(c.log)
}

// String lists the counts, by method name.
func (c *countingClient) String() string {
	calls, _ := c.snapshot()
	names := make([]string, 0, len(calls))
	for k := range calls {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		b.WriteString(k + "×" + itoa(uint64(calls[k])) + " ")
	}
	return strings.TrimSpace(b.String())
}

var _ api.Client = (*countingClient)(nil)

func (c *countingClient) Activity(a0 context.Context) (api.Activity, error) {
	defer c.finish(c.begin("Activity"))
	return c.inner.Activity(a0)
}

func (c *countingClient) Approve(a0 context.Context, a1 string, a2 string, a3 string) error {
	defer c.finish(c.begin("Approve"))
	return c.inner.Approve(a0, a1, a2, a3)
}

func (c *countingClient) ArchiveSession(a0 context.Context, a1 string, a2 bool) (*api.Session, error) {
	defer c.finish(c.begin("ArchiveSession"))
	return c.inner.ArchiveSession(a0, a1, a2)
}

func (c *countingClient) Artifact(a0 context.Context, a1 string) (io.ReadCloser, error) {
	defer c.finish(c.begin("Artifact"))
	return c.inner.Artifact(a0, a1)
}

func (c *countingClient) Attach(a0 context.Context, a1 string, a2 string) error {
	defer c.finish(c.begin("Attach"))
	return c.inner.Attach(a0, a1, a2)
}

func (c *countingClient) Backup(a0 context.Context, a1 string) (api.BackupResult, error) {
	defer c.finish(c.begin("Backup"))
	return c.inner.Backup(a0, a1)
}

func (c *countingClient) BranchPoints(a0 context.Context, a1 string) (map[uint64]int, error) {
	defer c.finish(c.begin("BranchPoints"))
	return c.inner.BranchPoints(a0, a1)
}

func (c *countingClient) CancelTurn(a0 context.Context, a1 string) error {
	defer c.finish(c.begin("CancelTurn"))
	return c.inner.CancelTurn(a0, a1)
}

func (c *countingClient) Unqueue(a0 context.Context, a1, a2 string) error {
	defer c.finish(c.begin("Unqueue"))
	return c.inner.Unqueue(a0, a1, a2)
}

func (c *countingClient) Close() error {
	defer c.finish(c.begin("Close"))
	return c.inner.Close()
}

func (c *countingClient) Compact(a0 context.Context, a1 string) (api.CompactionReport, error) {
	defer c.finish(c.begin("Compact"))
	return c.inner.Compact(a0, a1)
}

func (c *countingClient) ConflictDiff(a0 context.Context, a1 string, a2 string) (string, error) {
	defer c.finish(c.begin("ConflictDiff"))
	return c.inner.ConflictDiff(a0, a1, a2)
}

func (c *countingClient) Doctor(a0 context.Context, a1 string) (api.DoctorReport, error) {
	defer c.finish(c.begin("Doctor"))
	return c.inner.Doctor(a0, a1)
}

func (c *countingClient) Drift(a0 context.Context, a1 string) (api.DriftReport, error) {
	defer c.finish(c.begin("Drift"))
	return c.inner.Drift(a0, a1)
}

func (c *countingClient) Enforcement(a0 context.Context, a1 string) (api.EnforcementInfo, error) {
	defer c.finish(c.begin("Enforcement"))
	return c.inner.Enforcement(a0, a1)
}

func (c *countingClient) Events(a0 context.Context, a1 string, a2 uint64, a3 uint64) ([]api.Event, error) {
	defer c.finish(c.begin("Events"))
	return c.inner.Events(a0, a1, a2, a3)
}

func (c *countingClient) Exec(a0 context.Context, a1 api.ExecRequest, a2 io.Writer) (api.ExecResult, error) {
	defer c.finish(c.begin("Exec"))
	return c.inner.Exec(a0, a1, a2)
}

func (c *countingClient) FileAtSnapshot(a0 context.Context, a1 string, a2 string) (string, error) {
	defer c.finish(c.begin("FileAtSnapshot"))
	return c.inner.FileAtSnapshot(a0, a1, a2)
}

func (c *countingClient) Files(a0 context.Context, a1 string) ([]string, error) {
	defer c.finish(c.begin("Files"))
	return c.inner.Files(a0, a1)
}

func (c *countingClient) Finish(a0 context.Context, a1 api.FinishRequest) (*api.Memento, error) {
	defer c.finish(c.begin("Finish"))
	return c.inner.Finish(a0, a1)
}

func (c *countingClient) Fork(a0 context.Context, a1 api.ForkRequest) (*api.Session, error) {
	defer c.finish(c.begin("Fork"))
	return c.inner.Fork(a0, a1)
}

func (c *countingClient) GC(a0 context.Context, a1 bool) (api.GCReport, error) {
	defer c.finish(c.begin("GC"))
	return c.inner.GC(a0, a1)
}

func (c *countingClient) Gate(a0 context.Context, a1 api.GateRequest) (api.GateResult, error) {
	defer c.finish(c.begin("Gate"))
	return c.inner.Gate(a0, a1)
}

func (c *countingClient) Handoff(a0 context.Context, a1 api.HandoffRequest) (*api.HandoffResult, error) {
	defer c.finish(c.begin("Handoff"))
	return c.inner.Handoff(a0, a1)
}

func (c *countingClient) KillTask(a0 context.Context, a1 string) error {
	defer c.finish(c.begin("KillTask"))
	return c.inner.KillTask(a0, a1)
}

func (c *countingClient) ListSessions(a0 context.Context) ([]api.SessionInfo, error) {
	defer c.finish(c.begin("ListSessions"))
	return c.inner.ListSessions(a0)
}

func (c *countingClient) Commands(a0 context.Context, a1 string) ([]api.CommandInfo, error) {
	defer c.finish(c.begin("Commands"))
	return c.inner.Commands(a0, a1)
}

func (c *countingClient) MCPStatus(a0 context.Context, a1 string, a2 bool) ([]api.MCPStatus, error) {
	defer c.finish(c.begin("MCPStatus"))
	return c.inner.MCPStatus(a0, a1, a2)
}

func (c *countingClient) Model(a0 context.Context, a1 string) (api.ModelSpec, error) {
	defer c.finish(c.begin("Model"))
	return c.inner.Model(a0, a1)
}

func (c *countingClient) Models(a0 context.Context) (api.ModelList, error) {
	defer c.finish(c.begin("Models"))
	return c.inner.Models(a0)
}

func (c *countingClient) NewSession(a0 context.Context, a1 api.NewSessionRequest) (*api.Session, error) {
	defer c.finish(c.begin("NewSession"))
	return c.inner.NewSession(a0, a1)
}

func (c *countingClient) ProjectTrust(a0 context.Context, a1 string) (api.ProjectTrust, error) {
	defer c.finish(c.begin("ProjectTrust"))
	return c.inner.ProjectTrust(a0, a1)
}

func (c *countingClient) Redact(a0 context.Context, a1 string) (string, error) {
	defer c.finish(c.begin("Redact"))
	return c.inner.Redact(a0, a1)
}

func (c *countingClient) RegisterModel(a0 context.Context, a1 api.ModelSpec) (api.ModelSpec, error) {
	defer c.finish(c.begin("RegisterModel"))
	return c.inner.RegisterModel(a0, a1)
}

func (c *countingClient) RemoteModels(a0 context.Context, a1 api.RemoteQuery) (api.RemoteModels, error) {
	defer c.finish(c.begin("RemoteModels"))
	return c.inner.RemoteModels(a0, a1)
}

func (c *countingClient) RemoveModel(a0 context.Context, a1 string) error {
	defer c.finish(c.begin("RemoveModel"))
	return c.inner.RemoveModel(a0, a1)
}

func (c *countingClient) RemoveSecret(a0 context.Context, a1 string) error {
	defer c.finish(c.begin("RemoveSecret"))
	return c.inner.RemoveSecret(a0, a1)
}

func (c *countingClient) RemoveSession(a0 context.Context, a1 string) (api.RemoveResult, error) {
	defer c.finish(c.begin("RemoveSession"))
	return c.inner.RemoveSession(a0, a1)
}

func (c *countingClient) Rewind(a0 context.Context, a1 string, a2 uint64) (*api.Session, error) {
	defer c.finish(c.begin("Rewind"))
	return c.inner.Rewind(a0, a1, a2)
}

func (c *countingClient) RewindPreview(a0 context.Context, a1 string, a2 uint64) (api.RewindPlan, error) {
	defer c.finish(c.begin("RewindPreview"))
	return c.inner.RewindPreview(a0, a1, a2)
}

func (c *countingClient) Say(a0 context.Context, a1 string, a2 string, a3 string) (api.Event, error) {
	defer c.finish(c.begin("Say"))
	return c.inner.Say(a0, a1, a2, a3)
}

func (c *countingClient) Scope(a0 context.Context, a1 string) (api.Scope, error) {
	defer c.finish(c.begin("Scope"))
	return c.inner.Scope(a0, a1)
}

func (c *countingClient) Secrets(a0 context.Context) ([]api.SecretInfo, error) {
	defer c.finish(c.begin("Secrets"))
	return c.inner.Secrets(a0)
}

func (c *countingClient) SelectExecutor(a0 context.Context, a1 string, a2 string) (api.ExecutorInfo, error) {
	defer c.finish(c.begin("SelectExecutor"))
	return c.inner.SelectExecutor(a0, a1, a2)
}

func (c *countingClient) Session(a0 context.Context, a1 string) (*api.Session, error) {
	defer c.finish(c.begin("Session"))
	return c.inner.Session(a0, a1)
}

func (c *countingClient) SetDefaultModel(a0 context.Context, a1 string) error {
	defer c.finish(c.begin("SetDefaultModel"))
	return c.inner.SetDefaultModel(a0, a1)
}

func (c *countingClient) SetScope(a0 context.Context, a1 string, a2 api.Scope, a3 string) (api.Scope, error) {
	defer c.finish(c.begin("SetScope"))
	return c.inner.SetScope(a0, a1, a2, a3)
}

func (c *countingClient) SetSecret(a0 context.Context, a1 string, a2 []uint8) error {
	defer c.finish(c.begin("SetSecret"))
	return c.inner.SetSecret(a0, a1, a2)
}

func (c *countingClient) SetSetting(a0 context.Context, a1 string, a2 string, a3 string) (*api.Session, error) {
	defer c.finish(c.begin("SetSetting"))
	return c.inner.SetSetting(a0, a1, a2, a3)
}

func (c *countingClient) StartTask(a0 context.Context, a1 string, a2 string) (api.DetachedTask, error) {
	defer c.finish(c.begin("StartTask"))
	return c.inner.StartTask(a0, a1, a2)
}

func (c *countingClient) StartTurn(a0 context.Context, a1 api.TurnRequest) (api.TurnStarted, error) {
	defer c.finish(c.begin("StartTurn"))
	return c.inner.StartTurn(a0, a1)
}

func (c *countingClient) State(a0 context.Context, a1 string) (*api.SessionState, error) {
	defer c.finish(c.begin("State"))
	return c.inner.State(a0, a1)
}

func (c *countingClient) StateAt(a0 context.Context, a1 string, a2 uint64) (*api.SessionState, error) {
	defer c.finish(c.begin("StateAt"))
	return c.inner.StateAt(a0, a1, a2)
}

func (c *countingClient) TakeOver(a0 context.Context, a1 string) (*api.Session, error) {
	defer c.finish(c.begin("TakeOver"))
	return c.inner.TakeOver(a0, a1)
}

func (c *countingClient) TaskOutput(a0 context.Context, a1 string, a2 io.Writer) error {
	defer c.finish(c.begin("TaskOutput"))
	return c.inner.TaskOutput(a0, a1, a2)
}

func (c *countingClient) Tasks(a0 context.Context) ([]api.DetachedTask, error) {
	defer c.finish(c.begin("Tasks"))
	return c.inner.Tasks(a0)
}

func (c *countingClient) Trust(a0 context.Context, a1 api.TrustRequest) (api.ProjectTrust, error) {
	defer c.finish(c.begin("Trust"))
	return c.inner.Trust(a0, a1)
}

func (c *countingClient) Verify(a0 context.Context, a1 string) (api.VerifyReport, error) {
	defer c.finish(c.begin("Verify"))
	return c.inner.Verify(a0, a1)
}

func (c *countingClient) WaitTurn(a0 context.Context, a1 string, a2 string) (api.TurnResult, error) {
	defer c.finish(c.begin("WaitTurn"))
	return c.inner.WaitTurn(a0, a1, a2)
}

func (c *countingClient) Watch(a0 context.Context, a1 api.WatchRequest) (*api.Watcher, error) {
	defer c.finish(c.begin("Watch"))
	return c.inner.Watch(a0, a1)
}

func (c *countingClient) StartAttempts(a0 context.Context, a1 api.AttemptsRequest) (api.AttemptSet, error) {
	defer c.finish(c.begin("StartAttempts"))
	return c.inner.StartAttempts(a0, a1)
}

func (c *countingClient) AttemptSet(a0 context.Context, a1 string) (api.AttemptSet, error) {
	defer c.finish(c.begin("AttemptSet"))
	return c.inner.AttemptSet(a0, a1)
}

func (c *countingClient) KeepAttempt(a0 context.Context, a1 api.KeepRequest) (api.KeepResult, error) {
	defer c.finish(c.begin("KeepAttempt"))
	return c.inner.KeepAttempt(a0, a1)
}

func (c *countingClient) Replay(a0 context.Context, a1 api.ReplayRequest) (api.AttemptSet, error) {
	defer c.finish(c.begin("Replay"))
	return c.inner.Replay(a0, a1)
}
