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
}

// newCountingClient counts the requests made to inner.
func newCountingClient(inner api.Client) *countingClient {
	return &countingClient{inner: inner, calls: map[string]int{}}
}

// count records one request.
func (c *countingClient) count(method string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[method]++
	c.log = append(c.log, method)
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
	c.count("Activity")
	return c.inner.Activity(a0)
}

func (c *countingClient) Approve(a0 context.Context, a1 string, a2 string, a3 string) error {
	c.count("Approve")
	return c.inner.Approve(a0, a1, a2, a3)
}

func (c *countingClient) ArchiveSession(a0 context.Context, a1 string, a2 bool) (*api.Session, error) {
	c.count("ArchiveSession")
	return c.inner.ArchiveSession(a0, a1, a2)
}

func (c *countingClient) Artifact(a0 context.Context, a1 string) (io.ReadCloser, error) {
	c.count("Artifact")
	return c.inner.Artifact(a0, a1)
}

func (c *countingClient) Attach(a0 context.Context, a1 string, a2 string) error {
	c.count("Attach")
	return c.inner.Attach(a0, a1, a2)
}

func (c *countingClient) Backup(a0 context.Context, a1 string) (api.BackupResult, error) {
	c.count("Backup")
	return c.inner.Backup(a0, a1)
}

func (c *countingClient) BranchPoints(a0 context.Context, a1 string) (map[uint64]int, error) {
	c.count("BranchPoints")
	return c.inner.BranchPoints(a0, a1)
}

func (c *countingClient) CancelTurn(a0 context.Context, a1 string) error {
	c.count("CancelTurn")
	return c.inner.CancelTurn(a0, a1)
}

func (c *countingClient) Unqueue(a0 context.Context, a1, a2 string) error {
	c.count("Unqueue")
	return c.inner.Unqueue(a0, a1, a2)
}

func (c *countingClient) Close() error {
	c.count("Close")
	return c.inner.Close()
}

func (c *countingClient) Compact(a0 context.Context, a1 string) (api.CompactionReport, error) {
	c.count("Compact")
	return c.inner.Compact(a0, a1)
}

func (c *countingClient) ConflictDiff(a0 context.Context, a1 string, a2 string) (string, error) {
	c.count("ConflictDiff")
	return c.inner.ConflictDiff(a0, a1, a2)
}

func (c *countingClient) Doctor(a0 context.Context, a1 string) (api.DoctorReport, error) {
	c.count("Doctor")
	return c.inner.Doctor(a0, a1)
}

func (c *countingClient) Drift(a0 context.Context, a1 string) (api.DriftReport, error) {
	c.count("Drift")
	return c.inner.Drift(a0, a1)
}

func (c *countingClient) Enforcement(a0 context.Context, a1 string) (api.EnforcementInfo, error) {
	c.count("Enforcement")
	return c.inner.Enforcement(a0, a1)
}

func (c *countingClient) Events(a0 context.Context, a1 string, a2 uint64, a3 uint64) ([]api.Event, error) {
	c.count("Events")
	return c.inner.Events(a0, a1, a2, a3)
}

func (c *countingClient) Exec(a0 context.Context, a1 api.ExecRequest, a2 io.Writer) (api.ExecResult, error) {
	c.count("Exec")
	return c.inner.Exec(a0, a1, a2)
}

func (c *countingClient) FileAtSnapshot(a0 context.Context, a1 string, a2 string) (string, error) {
	c.count("FileAtSnapshot")
	return c.inner.FileAtSnapshot(a0, a1, a2)
}

func (c *countingClient) Files(a0 context.Context, a1 string) ([]string, error) {
	c.count("Files")
	return c.inner.Files(a0, a1)
}

func (c *countingClient) Finish(a0 context.Context, a1 api.FinishRequest) (*api.Memento, error) {
	c.count("Finish")
	return c.inner.Finish(a0, a1)
}

func (c *countingClient) Fork(a0 context.Context, a1 api.ForkRequest) (*api.Session, error) {
	c.count("Fork")
	return c.inner.Fork(a0, a1)
}

func (c *countingClient) GC(a0 context.Context, a1 bool) (api.GCReport, error) {
	c.count("GC")
	return c.inner.GC(a0, a1)
}

func (c *countingClient) Gate(a0 context.Context, a1 api.GateRequest) (api.GateResult, error) {
	c.count("Gate")
	return c.inner.Gate(a0, a1)
}

func (c *countingClient) Handoff(a0 context.Context, a1 api.HandoffRequest) (*api.HandoffResult, error) {
	c.count("Handoff")
	return c.inner.Handoff(a0, a1)
}

func (c *countingClient) KillTask(a0 context.Context, a1 string) error {
	c.count("KillTask")
	return c.inner.KillTask(a0, a1)
}

func (c *countingClient) ListSessions(a0 context.Context) ([]api.SessionInfo, error) {
	c.count("ListSessions")
	return c.inner.ListSessions(a0)
}

func (c *countingClient) Commands(a0 context.Context, a1 string) ([]api.CommandInfo, error) {
	c.count("Commands")
	return c.inner.Commands(a0, a1)
}

func (c *countingClient) MCPStatus(a0 context.Context, a1 string, a2 bool) ([]api.MCPStatus, error) {
	c.count("MCPStatus")
	return c.inner.MCPStatus(a0, a1, a2)
}

func (c *countingClient) Model(a0 context.Context, a1 string) (api.ModelSpec, error) {
	c.count("Model")
	return c.inner.Model(a0, a1)
}

func (c *countingClient) Models(a0 context.Context) (api.ModelList, error) {
	c.count("Models")
	return c.inner.Models(a0)
}

func (c *countingClient) NewSession(a0 context.Context, a1 api.NewSessionRequest) (*api.Session, error) {
	c.count("NewSession")
	return c.inner.NewSession(a0, a1)
}

func (c *countingClient) ProjectTrust(a0 context.Context, a1 string) (api.ProjectTrust, error) {
	c.count("ProjectTrust")
	return c.inner.ProjectTrust(a0, a1)
}

func (c *countingClient) Redact(a0 context.Context, a1 string) (string, error) {
	c.count("Redact")
	return c.inner.Redact(a0, a1)
}

func (c *countingClient) RegisterModel(a0 context.Context, a1 api.ModelSpec) (api.ModelSpec, error) {
	c.count("RegisterModel")
	return c.inner.RegisterModel(a0, a1)
}

func (c *countingClient) RemoteModels(a0 context.Context, a1 api.RemoteQuery) (api.RemoteModels, error) {
	c.count("RemoteModels")
	return c.inner.RemoteModels(a0, a1)
}

func (c *countingClient) RemoveModel(a0 context.Context, a1 string) error {
	c.count("RemoveModel")
	return c.inner.RemoveModel(a0, a1)
}

func (c *countingClient) RemoveSecret(a0 context.Context, a1 string) error {
	c.count("RemoveSecret")
	return c.inner.RemoveSecret(a0, a1)
}

func (c *countingClient) RemoveSession(a0 context.Context, a1 string) (api.RemoveResult, error) {
	c.count("RemoveSession")
	return c.inner.RemoveSession(a0, a1)
}

func (c *countingClient) Rewind(a0 context.Context, a1 string, a2 uint64) (*api.Session, error) {
	c.count("Rewind")
	return c.inner.Rewind(a0, a1, a2)
}

func (c *countingClient) RewindPreview(a0 context.Context, a1 string, a2 uint64) (api.RewindPlan, error) {
	c.count("RewindPreview")
	return c.inner.RewindPreview(a0, a1, a2)
}

func (c *countingClient) Say(a0 context.Context, a1 string, a2 string, a3 string) (api.Event, error) {
	c.count("Say")
	return c.inner.Say(a0, a1, a2, a3)
}

func (c *countingClient) Scope(a0 context.Context, a1 string) (api.Scope, error) {
	c.count("Scope")
	return c.inner.Scope(a0, a1)
}

func (c *countingClient) Secrets(a0 context.Context) ([]api.SecretInfo, error) {
	c.count("Secrets")
	return c.inner.Secrets(a0)
}

func (c *countingClient) SelectExecutor(a0 context.Context, a1 string, a2 string) (api.ExecutorInfo, error) {
	c.count("SelectExecutor")
	return c.inner.SelectExecutor(a0, a1, a2)
}

func (c *countingClient) Session(a0 context.Context, a1 string) (*api.Session, error) {
	c.count("Session")
	return c.inner.Session(a0, a1)
}

func (c *countingClient) SetDefaultModel(a0 context.Context, a1 string) error {
	c.count("SetDefaultModel")
	return c.inner.SetDefaultModel(a0, a1)
}

func (c *countingClient) SetScope(a0 context.Context, a1 string, a2 api.Scope, a3 string) (api.Scope, error) {
	c.count("SetScope")
	return c.inner.SetScope(a0, a1, a2, a3)
}

func (c *countingClient) SetSecret(a0 context.Context, a1 string, a2 []uint8) error {
	c.count("SetSecret")
	return c.inner.SetSecret(a0, a1, a2)
}

func (c *countingClient) SetSetting(a0 context.Context, a1 string, a2 string, a3 string) (*api.Session, error) {
	c.count("SetSetting")
	return c.inner.SetSetting(a0, a1, a2, a3)
}

func (c *countingClient) StartTask(a0 context.Context, a1 string, a2 string) (api.DetachedTask, error) {
	c.count("StartTask")
	return c.inner.StartTask(a0, a1, a2)
}

func (c *countingClient) StartTurn(a0 context.Context, a1 api.TurnRequest) (api.TurnStarted, error) {
	c.count("StartTurn")
	return c.inner.StartTurn(a0, a1)
}

func (c *countingClient) State(a0 context.Context, a1 string) (*api.SessionState, error) {
	c.count("State")
	return c.inner.State(a0, a1)
}

func (c *countingClient) StateAt(a0 context.Context, a1 string, a2 uint64) (*api.SessionState, error) {
	c.count("StateAt")
	return c.inner.StateAt(a0, a1, a2)
}

func (c *countingClient) TakeOver(a0 context.Context, a1 string) (*api.Session, error) {
	c.count("TakeOver")
	return c.inner.TakeOver(a0, a1)
}

func (c *countingClient) TaskOutput(a0 context.Context, a1 string, a2 io.Writer) error {
	c.count("TaskOutput")
	return c.inner.TaskOutput(a0, a1, a2)
}

func (c *countingClient) Tasks(a0 context.Context) ([]api.DetachedTask, error) {
	c.count("Tasks")
	return c.inner.Tasks(a0)
}

func (c *countingClient) Trust(a0 context.Context, a1 api.TrustRequest) (api.ProjectTrust, error) {
	c.count("Trust")
	return c.inner.Trust(a0, a1)
}

func (c *countingClient) Verify(a0 context.Context, a1 string) (api.VerifyReport, error) {
	c.count("Verify")
	return c.inner.Verify(a0, a1)
}

func (c *countingClient) WaitTurn(a0 context.Context, a1 string, a2 string) (api.TurnResult, error) {
	c.count("WaitTurn")
	return c.inner.WaitTurn(a0, a1, a2)
}

func (c *countingClient) Watch(a0 context.Context, a1 api.WatchRequest) (*api.Watcher, error) {
	c.count("Watch")
	return c.inner.Watch(a0, a1)
}
