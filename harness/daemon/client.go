package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/executor"
	"exo/harness/executors"
	"exo/harness/governance"
	"exo/harness/mcp"
	"exo/harness/secrets"
)

// Client is the harness API over a daemon's socket.
type Client struct {
	socket string
	http   *http.Client

	mu   sync.Mutex
	info api.DaemonInfo // the daemon this client reached (from its hello)
	home string
	// starter starts a new daemon when a request finds none (nil: the client never starts one).
	starter *starter
	// asIs keeps the daemon found whatever its build (exo daemon status and stop look at the
	// daemon that runs; replacing an older one would make them report or stop the wrong one).
	asIs bool
}

// Daemon describes the daemon this client reached (from its hello).
func (c *Client) Daemon() api.DaemonInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.info
}

// setInfo records the daemon a hello reached.
func (c *Client) setInfo(info api.DaemonInfo) {
	c.mu.Lock()
	c.info = info
	c.mu.Unlock()
}

var _ api.Client = (*Client)(nil)

// newClient returns a client of the daemon at socket (no connection is made yet).
func newClient(socket string) *Client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
		MaxIdleConns:        8,
		MaxIdleConnsPerHost: 8,
		DisableCompression:  true,
	}
	return &Client{socket: socket, http: &http.Client{Transport: tr}}
}

// hello asks the daemon who it is.
func (c *Client) hello(ctx context.Context) (api.DaemonInfo, error) {
	var info api.DaemonInfo
	err := c.callOnce(ctx, "GET", "/v1/hello", nil, &info)
	return info, err
}

// Close releases idle connections.
func (c *Client) Close() error {
	c.http.CloseIdleConnections()
	return nil
}

// request builds a request with the protocol headers.
func (c *Client) request(ctx context.Context, method, path string, body any) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("encode request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://exo"+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set(headerProtocol, protocolString)
	req.Header.Set(headerBuild, BuildID())
	req.Header.Set(headerBuilt, builtHeader())
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// do sends a request and returns the response of a success, or the error it carries. When the
// request could not reach a daemon (none listens: it was killed or went idle), a client that
// may start one starts it and sends the request again: nothing of it had been sent.
func (c *Client) do(ctx context.Context, method, path string, body any) (*http.Response, error) {
	resp, dialed, err := c.send(ctx, method, path, body)
	if err == nil || dialed || c.starter == nil || ctx.Err() != nil {
		return resp, err
	}
	if rerr := c.restart(ctx); rerr != nil {
		return nil, fmt.Errorf("%w (starting a new one: %w)", err, rerr)
	}
	resp, _, err = c.send(ctx, method, path, body)
	return resp, err
}

// send sends a request once; dialed is false when it never reached a daemon.
func (c *Client) send(ctx context.Context, method, path string, body any) (resp *http.Response, dialed bool, err error) {
	req, err := c.request(ctx, method, path, body)
	if err != nil {
		return nil, true, err
	}
	resp, err = c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, true, ctx.Err()
		}
		var op *net.OpError
		return nil, !(errors.As(err, &op) && op.Op == "dial"), unreachable(c.socket, err)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		var re api.RemoteError
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if json.Unmarshal(b, &re) != nil || re.Message == "" {
			re.Message = fmt.Sprintf("exo daemon: %s: %s", resp.Status, strings.TrimSpace(string(b)))
		}
		return nil, true, &re
	}
	return resp, true, nil
}

// call sends a JSON request and decodes the JSON answer into out (nil to ignore it).
func (c *Client) call(ctx context.Context, method, path string, body, out any) error {
	resp, err := c.do(ctx, method, path, body)
	return decodeAnswer(resp, err, method, path, out)
}

// callOnce is call without starting a daemon when none answers (the handshake).
func (c *Client) callOnce(ctx context.Context, method, path string, body, out any) error {
	resp, _, err := c.send(ctx, method, path, body)
	return decodeAnswer(resp, err, method, path, out)
}

// decodeAnswer decodes a JSON answer into out (nil to ignore it).
func decodeAnswer(resp *http.Response, err error, method, path string, out any) error {
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("exo daemon: bad answer to %s %s: %w", method, path, err)
	}
	return nil
}

// unreachable explains a connection failure.
func unreachable(socket string, err error) error {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return fmt.Errorf("%w (%s): %v", api.ErrUnavailable, socket, err)
	}
	return fmt.Errorf("exo daemon at %s: %w", socket, err)
}

// esc escapes a path segment.
func esc(s string) string { return url.PathEscape(s) }

// ListSessions returns every session with its state.
func (c *Client) ListSessions(ctx context.Context) ([]api.SessionInfo, error) {
	var out []api.SessionInfo
	return out, c.call(ctx, "GET", "/v1/sessions", nil, &out)
}

// Session resolves a reference.
func (c *Client) Session(ctx context.Context, ref string) (*harness.Session, error) {
	var out harness.Session
	return &out, c.call(ctx, "GET", "/v1/sessions/"+esc(ref), nil, &out)
}

// TakeOver makes another daemon's session this daemon's.
func (c *Client) TakeOver(ctx context.Context, ref string) (*harness.Session, error) {
	var out harness.Session
	return &out, c.call(ctx, "POST", "/v1/sessions/"+esc(ref)+"/takeover", nil, &out)
}

// NewSession creates a session.
func (c *Client) NewSession(ctx context.Context, req api.NewSessionRequest) (*harness.Session, error) {
	var out harness.Session
	return &out, c.call(ctx, "POST", "/v1/sessions", req, &out)
}

// SetSetting sets a session setting.
func (c *Client) SetSetting(ctx context.Context, sessionID, key, value string) (*harness.Session, error) {
	var out harness.Session
	return &out, c.call(ctx, "POST", "/v1/sessions/"+esc(sessionID)+"/settings", map[string]string{"Key": key, "Value": value}, &out)
}

// Fork forks a session.
func (c *Client) Fork(ctx context.Context, req api.ForkRequest) (*harness.Session, error) {
	var out harness.Session
	return &out, c.call(ctx, "POST", "/v1/sessions/"+esc(req.Session)+"/fork", req, &out)
}

// Rewind rewinds a session.
func (c *Client) Rewind(ctx context.Context, sessionID string, seq uint64) (*harness.Session, error) {
	var out harness.Session
	return &out, c.call(ctx, "POST", "/v1/sessions/"+esc(sessionID)+"/rewind?seq="+u64(seq), nil, &out)
}

// RewindPreview says what a rewind would undo.
func (c *Client) RewindPreview(ctx context.Context, sessionID string, seq uint64) (api.RewindPlan, error) {
	var out api.RewindPlan
	return out, c.call(ctx, "GET", "/v1/sessions/"+esc(sessionID)+"/rewind?seq="+u64(seq), nil, &out)
}

// Files lists the session's workspace for @path completion.
func (c *Client) Files(ctx context.Context, sessionID string) ([]string, error) {
	var out []string
	return out, c.call(ctx, "GET", "/v1/sessions/"+esc(sessionID)+"/files", nil, &out)
}

// Say appends a user message.
func (c *Client) Say(ctx context.Context, sessionID, text, source string) (harness.Event, error) {
	var out harness.Event
	return out, c.call(ctx, "POST", "/v1/sessions/"+esc(sessionID)+"/messages", map[string]string{"Text": text, "Source": source}, &out)
}

// State returns a branch's projection at its head.
func (c *Client) State(ctx context.Context, branch string) (*harness.SessionState, error) {
	var out harness.SessionState
	return &out, c.call(ctx, "GET", "/v1/branches/"+esc(branch)+"/state", nil, &out)
}

// StateAt returns a branch's projection as of seq.
func (c *Client) StateAt(ctx context.Context, branch string, seq uint64) (*harness.SessionState, error) {
	var out harness.SessionState
	return &out, c.call(ctx, "GET", "/v1/branches/"+esc(branch)+"/state?seq="+u64(seq), nil, &out)
}

// Events returns events of a branch's history.
func (c *Client) Events(ctx context.Context, branch string, from, to uint64) ([]harness.Event, error) {
	var out []harness.Event
	return out, c.call(ctx, "GET", "/v1/branches/"+esc(branch)+"/events?from="+u64(from)+"&to="+u64(to), nil, &out)
}

// BranchPoints counts forks and rewinds per seq.
func (c *Client) BranchPoints(ctx context.Context, branch string) (map[uint64]int, error) {
	out := map[uint64]int{}
	return out, c.call(ctx, "GET", "/v1/branches/"+esc(branch)+"/points", nil, &out)
}

// Verify recomputes hash chains.
func (c *Client) Verify(ctx context.Context, sessionID string) (harness.VerifyReport, error) {
	var out harness.VerifyReport
	return out, c.call(ctx, "GET", "/v1/verify?session="+url.QueryEscape(sessionID), nil, &out)
}

// Artifact opens an artifact.
func (c *Client) Artifact(ctx context.Context, id string) (io.ReadCloser, error) {
	resp, err := c.do(ctx, "GET", "/v1/artifacts/"+esc(id), nil)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// FileAtSnapshot returns a file as the session's newest snapshot holds it.
func (c *Client) FileAtSnapshot(ctx context.Context, sessionID, path string) (string, error) {
	var out struct{ Text string }
	return out.Text, c.call(ctx, "GET", "/v1/sessions/"+esc(sessionID)+"/file?path="+url.QueryEscape(path), nil, &out)
}

// StartTurn starts a turn.
func (c *Client) StartTurn(ctx context.Context, req api.TurnRequest) (api.TurnStarted, error) {
	var out api.TurnStarted
	return out, c.call(ctx, "POST", "/v1/sessions/"+esc(req.Session)+"/turns", req, &out)
}

// WaitTurn waits for a turn's result.
func (c *Client) WaitTurn(ctx context.Context, sessionID, turnID string) (harness.TurnResult, error) {
	var out harness.TurnResult
	return out, c.call(ctx, "GET", "/v1/sessions/"+esc(sessionID)+"/turns/wait?turn="+url.QueryEscape(turnID), nil, &out)
}

// CancelTurn cancels the running turn.
func (c *Client) CancelTurn(ctx context.Context, sessionID string) error {
	return c.call(ctx, "POST", "/v1/sessions/"+esc(sessionID)+"/cancel", nil, nil)
}

// SelectExecutor makes an executor the session's.
func (c *Client) SelectExecutor(ctx context.Context, sessionID, name string) (executors.Info, error) {
	var out executors.Info
	return out, c.call(ctx, "PUT", "/v1/sessions/"+esc(sessionID)+"/executor", map[string]string{"name": name}, &out)
}

// Approve answers an approval.
func (c *Client) Approve(ctx context.Context, sessionID, callID, decision string) error {
	return c.call(ctx, "POST", "/v1/sessions/"+esc(sessionID)+"/approvals", map[string]string{"call_id": callID, "decision": decision}, nil)
}

// Gate decides whether an action another agent asks for may run in a session.
func (c *Client) Gate(ctx context.Context, req api.GateRequest) (api.GateResult, error) {
	var out api.GateResult
	return out, c.call(ctx, "POST", "/v1/sessions/"+esc(req.Session)+"/gate", req, &out)
}

// Compact compacts a session's prompt view.
func (c *Client) Compact(ctx context.Context, sessionID string) (executor.CompactionReport, error) {
	var out executor.CompactionReport
	return out, c.call(ctx, "POST", "/v1/sessions/"+esc(sessionID)+"/compact", nil, &out)
}

// Enforcement reports a session's sandbox policy.
func (c *Client) Enforcement(ctx context.Context, sessionID string) (api.EnforcementInfo, error) {
	var out api.EnforcementInfo
	return out, c.call(ctx, "GET", "/v1/sessions/"+esc(sessionID)+"/enforcement", nil, &out)
}

// StartTask starts a detached task.
func (c *Client) StartTask(ctx context.Context, sessionID, command string) (harness.DetachedTask, error) {
	var out harness.DetachedTask
	return out, c.call(ctx, "POST", "/v1/tasks", map[string]string{"Session": sessionID, "Command": command}, &out)
}

// Tasks lists detached tasks.
func (c *Client) Tasks(ctx context.Context) ([]harness.DetachedTask, error) {
	out := []harness.DetachedTask{}
	return out, c.call(ctx, "GET", "/v1/tasks", nil, &out)
}

// TaskOutput writes a task's output so far.
func (c *Client) TaskOutput(ctx context.Context, taskID string, w io.Writer) error {
	resp, err := c.do(ctx, "GET", "/v1/tasks/"+esc(taskID)+"/output", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(w, resp.Body)
	return err
}

// KillTask kills a detached task.
func (c *Client) KillTask(ctx context.Context, taskID string) error {
	return c.call(ctx, "DELETE", "/v1/tasks/"+esc(taskID), nil, nil)
}

// Models lists models.
func (c *Client) Models(ctx context.Context) (api.ModelList, error) {
	var out api.ModelList
	return out, c.call(ctx, "GET", "/v1/models", nil, &out)
}

// Model resolves a model.
func (c *Client) Model(ctx context.Context, name string) (harness.ModelSpec, error) {
	var out harness.ModelSpec
	return out, c.call(ctx, "GET", "/v1/model?name="+url.QueryEscape(name), nil, &out)
}

// RegisterModel registers a model.
func (c *Client) RegisterModel(ctx context.Context, spec harness.ModelSpec) (harness.ModelSpec, error) {
	var out harness.ModelSpec
	return out, c.call(ctx, "POST", "/v1/models", spec, &out)
}

// RemoveModel removes a model.
func (c *Client) RemoveModel(ctx context.Context, name string) error {
	return c.call(ctx, "DELETE", "/v1/models/"+esc(name), nil, nil)
}

// SetDefaultModel chooses the default model.
func (c *Client) SetDefaultModel(ctx context.Context, name string) error {
	return c.call(ctx, "PUT", "/v1/models/default", map[string]string{"Name": name}, nil)
}

// RemoteModels asks endpoints which models they serve.
func (c *Client) RemoteModels(ctx context.Context, q harness.RemoteQuery) (api.RemoteModels, error) {
	var out api.RemoteModels
	return out, c.call(ctx, "POST", "/v1/models/remote", q, &out)
}

// SetSecret seals a secret.
func (c *Client) SetSecret(ctx context.Context, name string, value []byte) error {
	return c.call(ctx, "PUT", "/v1/secrets/"+esc(name), map[string][]byte{"value": value}, nil)
}

// Secrets lists sealed secrets.
func (c *Client) Secrets(ctx context.Context) ([]secrets.Info, error) {
	out := []secrets.Info{}
	return out, c.call(ctx, "GET", "/v1/secrets", nil, &out)
}

// RemoveSecret removes a secret.
func (c *Client) RemoveSecret(ctx context.Context, name string) error {
	return c.call(ctx, "DELETE", "/v1/secrets/"+esc(name), nil, nil)
}

// Scope returns a session's scope.
func (c *Client) Scope(ctx context.Context, sessionID string) (governance.Scope, error) {
	var out governance.Scope
	return out, c.call(ctx, "GET", "/v1/sessions/"+esc(sessionID)+"/scope", nil, &out)
}

// SetScope replaces a session's scope.
func (c *Client) SetScope(ctx context.Context, sessionID string, sc governance.Scope, reason string) (governance.Scope, error) {
	var out governance.Scope
	return out, c.call(ctx, "PUT", "/v1/sessions/"+esc(sessionID)+"/scope", map[string]any{"scope": sc, "reason": reason}, &out)
}

// Drift reports drift and conflicts.
func (c *Client) Drift(ctx context.Context, sessionID string) (api.DriftReport, error) {
	var out api.DriftReport
	return out, c.call(ctx, "GET", "/v1/sessions/"+esc(sessionID)+"/drift", nil, &out)
}

// ConflictDiff renders conflict diffs.
func (c *Client) ConflictDiff(ctx context.Context, sessionID, with string) (string, error) {
	var out struct{ Diff string }
	return out.Diff, c.call(ctx, "GET", "/v1/sessions/"+esc(sessionID)+"/conflicts?with="+url.QueryEscape(with), nil, &out)
}

// Finish finishes a session.
func (c *Client) Finish(ctx context.Context, req api.FinishRequest) (*governance.Memento, error) {
	var out governance.Memento
	return &out, c.call(ctx, "POST", "/v1/sessions/"+esc(req.Session)+"/finish", req, &out)
}

// Handoff hands a session to another.
func (c *Client) Handoff(ctx context.Context, req api.HandoffRequest) (*api.HandoffResult, error) {
	var out api.HandoffResult
	return &out, c.call(ctx, "POST", "/v1/sessions/"+esc(req.Finish.Session)+"/handoff", req, &out)
}

// Doctor reports the harness's state.
func (c *Client) Doctor(ctx context.Context, workspace string) (api.DoctorReport, error) {
	var out api.DoctorReport
	return out, c.call(ctx, "GET", "/v1/doctor?workspace="+url.QueryEscape(workspace), nil, &out)
}

// MCPStatus lists the MCP servers configured for a workspace.
func (c *Client) MCPStatus(ctx context.Context, workspace string, check bool) ([]mcp.Status, error) {
	var out []mcp.Status
	q := "/v1/mcp?workspace=" + url.QueryEscape(workspace)
	if check {
		q += "&check=1"
	}
	return out, c.call(ctx, "GET", q, nil, &out)
}

// ProjectTrust reports a project's code and whether the user trusts it.
func (c *Client) ProjectTrust(ctx context.Context, workspace string) (api.ProjectTrust, error) {
	var out api.ProjectTrust
	return out, c.call(ctx, "GET", "/v1/trust?workspace="+url.QueryEscape(workspace), nil, &out)
}

// Trust records the user's trust in a project's files as reviewed, or revokes it.
func (c *Client) Trust(ctx context.Context, req api.TrustRequest) (api.ProjectTrust, error) {
	var out api.ProjectTrust
	return out, c.call(ctx, "POST", "/v1/trust", req, &out)
}

// Redact replaces sealed secrets' values in text.
func (c *Client) Redact(ctx context.Context, text string) (string, error) {
	var out struct{ Text string }
	return out.Text, c.call(ctx, "POST", "/v1/redact", map[string]string{"text": text}, &out)
}

// Activity reports what runs.
func (c *Client) Activity(ctx context.Context) (api.Activity, error) {
	var out api.Activity
	return out, c.call(ctx, "GET", "/v1/activity", nil, &out)
}

// Attach counts a watch as a client of a session.
func (c *Client) Attach(ctx context.Context, watchID, sessionID string) error {
	return c.call(ctx, "PUT", "/v1/watch/"+esc(watchID)+"/attach", map[string]string{"session": sessionID}, nil)
}

// u64 formats a number for a query.
func u64(n uint64) string { return strconv.FormatUint(n, 10) }

// errOnce keeps the first error of a stream.
type errOnce struct {
	mu  sync.Mutex
	err error
}

func (e *errOnce) set(err error) {
	e.mu.Lock()
	if e.err == nil {
		e.err = err
	}
	e.mu.Unlock()
}

func (e *errOnce) get() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}
