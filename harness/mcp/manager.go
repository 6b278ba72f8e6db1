package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/executor"
	"exo/harness/provider"
)

// ToolPrefix starts the name of every MCP tool offered to the model: mcp__SERVER__TOOL.
const ToolPrefix = "mcp__"

// Defaults for starting servers and calling tools (Claude Code's MCP_TIMEOUT and
// MCP_TOOL_TIMEOUT, in milliseconds, override them).
const (
	DefaultStartTimeout = 30 * time.Second
	DefaultCallTimeout  = 120 * time.Second
	// retryFailedAfter is how long a server that failed to start is left alone before the next
	// turn tries it again (a call of one of its tools always tries at once).
	retryFailedAfter = 30 * time.Second
)

// Options tune a Manager.
type Options struct {
	// UserFile is the user's configuration file; default UserFile().
	UserFile string
	// StartTimeout bounds starting a server and listing its tools.
	StartTimeout time.Duration
	// CallTimeout bounds a tool call when the server's config sets no timeout.
	CallTimeout time.Duration
	// LookupEnv reads variables for ${VAR}; default os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Trust, when set, decides whether a project's .mcp.json may start its servers (the user's
	// own configuration always may); nil trusts every file (tests of this package).
	Trust Trust
}

// Trust is the user's record of trusted project files (harness/trust's Store).
type Trust interface {
	// Check returns nil when data, the contents of file rel of the project at dir, is trusted.
	Check(dir, rel string, data []byte) error
	// Stamp changes whenever the record changes.
	Stamp() string
}

// StateUntrusted is the state of a project server whose .mcp.json the user has not trusted.
const StateUntrusted = api.MCPUntrusted

// Manager runs the MCP servers configured for the workspaces of a harness's sessions and offers
// their tools to the executor (it implements executor.ToolSource). Safe for concurrent use.
type Manager struct {
	h    *harness.Harness
	opts Options

	mu     sync.Mutex
	pools  map[string]*pool // by workspace
	policy map[string]string
	// projects maps a fork's workspace to its project's folder (whose trust it follows).
	projects map[string]string
	closed   bool
	// reported remembers configuration errors already recorded, by session and error.
	reported map[string]bool
}

var _ executor.ToolSource = (*Manager)(nil)

// NewManager returns a manager; no server starts before its tools are first wanted.
func NewManager(h *harness.Harness, opts Options) *Manager {
	if opts.UserFile == "" {
		opts.UserFile = UserFile()
	}
	if opts.LookupEnv == nil {
		opts.LookupEnv = os.LookupEnv
	}
	opts.StartTimeout = durationOr(opts.StartTimeout, envMillis("MCP_TIMEOUT", DefaultStartTimeout))
	opts.CallTimeout = durationOr(opts.CallTimeout, envMillis("MCP_TOOL_TIMEOUT", DefaultCallTimeout))
	m := &Manager{h: h, opts: opts, pools: map[string]*pool{}, policy: map[string]string{}, projects: map[string]string{}}
	m.register()
	return m
}

// envMillis reads a duration in milliseconds from the environment.
func envMillis(name string, def time.Duration) time.Duration {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return time.Duration(n) * time.Millisecond
	}
	return def
}

// Close stops every server.
func (m *Manager) Close() {
	m.unregister()
	m.mu.Lock()
	pools := m.pools
	m.pools, m.closed = map[string]*pool{}, true
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range pools {
		for _, c := range p.conns {
			wg.Add(1)
			go func() { defer wg.Done(); c.close() }()
		}
	}
	wg.Wait()
}

// env is what connections need from the manager.
func (m *Manager) env(workspace string) connEnv {
	return connEnv{
		resolver:     Resolver{LookupEnv: m.opts.LookupEnv, Secret: m.h.OpenSecret},
		launch:       launchSpec{home: m.h.Home(), workspace: workspace, helper: m.h.SandboxHelper(), caps: m.h.Capabilities()},
		startTimeout: m.opts.StartTimeout,
		redact:       m.h.Redact,
	}
}

// Tools starts the workspace's servers that have not run yet and lists their tools as
// mcp__SERVER__TOOL, sorted by name. State changes are recorded in the session.
func (m *Manager) Tools(ctx context.Context, sessionID string) []provider.Tool {
	s, err := m.h.Session(sessionID)
	if err != nil {
		return nil
	}
	m.learnProject(s)
	p, err := m.pool(s.Workspace)
	if err != nil {
		m.configError(s, err)
		return nil
	}
	if p == nil {
		return nil
	}
	for _, b := range p.blocked {
		m.configError(s, fmt.Errorf("MCP server %s (%s) not started: %s", b.Name, b.Target(), b.Untrusted))
	}
	m.startIdle(ctx, p, s.ID, s.Branch)
	var out []provider.Tool
	for _, c := range p.sorted() {
		c.mu.Lock()
		tools := c.tools
		c.mu.Unlock()
		for _, t := range tools {
			name := toolName(c.srv.Name, t.Name)
			p.remember(name, c.srv.Name, t.Name)
			m.setPolicy(name, c.srv.ServerConfig, t.Name)
			out = append(out, provider.Tool{Name: name, Description: describe(c.srv.Name, t), Schema: schemaOf(t)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// configError records, once per session and error, that the workspace's MCP configuration
// could not be read (its servers are not offered until it is fixed).
func (m *Manager) configError(s *harness.Session, err error) {
	key := s.ID + "\x00" + err.Error()
	m.mu.Lock()
	if m.reported == nil {
		m.reported = map[string]bool{}
	}
	seen := m.reported[key]
	m.reported[key] = true
	m.mu.Unlock()
	if !seen {
		m.record(s.ID, s.Branch, harness.MCPServer{Server: "(configuration)", State: harness.MCPFailed, Error: err.Error()})
	}
}

// startIdle starts, in parallel, the servers never started and those whose last start failed
// a while ago, and records what happened.
func (m *Manager) startIdle(ctx context.Context, p *pool, session, branch string) {
	var wg sync.WaitGroup
	for _, c := range p.sorted() {
		c.mu.Lock()
		idle := c.state == "" || (c.state == harness.MCPFailed && time.Since(c.tried) > retryFailedAfter)
		c.mu.Unlock()
		if !idle {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.use(session)
			if _, ev := c.live(ctx, m.env(p.ws)); ev != nil {
				m.record(session, branch, *ev)
			}
		}()
	}
	wg.Wait()
}

// Policy reports whether name is an MCP tool and its default approval: the server's approval
// setting (ask unless set), auto for tools in its autoApprove list.
func (m *Manager) Policy(name string) (string, bool) {
	if !strings.HasPrefix(name, ToolPrefix) {
		return "", false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if p, ok := m.policy[name]; ok {
		return p, true
	}
	return "ask", true
}

// setPolicy remembers a tool's default approval.
func (m *Manager) setPolicy(name string, c ServerConfig, tool string) {
	p := c.Approval
	if p == "" {
		p = "ask"
	}
	for _, a := range c.AutoApprove {
		if a == tool {
			p = "auto"
		}
	}
	m.mu.Lock()
	m.policy[name] = p
	m.mu.Unlock()
}

// Call runs an MCP tool: it starts the server when it is not running (a crashed or killed one
// is restarted), bounds the call by the server's timeout and turns the result into text, big
// results into an artifact.
func (m *Manager) Call(ctx context.Context, call executor.ExtCall) executor.ExtResult {
	if s, err := m.h.Session(call.Session); err == nil {
		m.learnProject(s)
	}
	p, err := m.pool(call.Workspace)
	if err != nil {
		return errResult(err.Error())
	}
	if p == nil {
		return errResult("no MCP servers are configured for this workspace")
	}
	c, tool, err := p.find(call.Name)
	if err != nil {
		return errResult(err.Error())
	}
	args, err := argsObject(call.Args)
	if err != nil {
		return errResult(err.Error())
	}
	c.use(call.Session)
	c.calling(1)
	defer c.calling(-1)
	sess, ev := c.live(ctx, m.env(p.ws))
	if ev != nil {
		m.record(call.Session, call.Branch, *ev)
	}
	if sess == nil {
		return errResult(fmt.Sprintf("MCP server %s is not running: %s", c.srv.Name, ev.Error))
	}
	if why := vetPaths(call.Vet, c.toolOf(tool), c.srv, args); why != "" {
		return errResult(fmt.Sprintf("refused before calling MCP server %s: %s", c.srv.Name, why))
	}
	timeout := m.opts.CallTimeout
	if c.srv.Timeout > 0 {
		timeout = time.Duration(c.srv.Timeout) * time.Second
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := sess.CallTool(cctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return m.callFailed(ctx, cctx, call, c, sess, timeout, err)
	}
	return m.result(c.srv.Name, tool, res)
}

// callFailed classifies a failed call: the user's cancel leaves the server; a timeout kills
// it; a closed connection is a crash; anything else is the server's error answer.
func (m *Manager) callFailed(ctx, cctx context.Context, call executor.ExtCall, c *conn, sess *sdk.ClientSession, timeout time.Duration, err error) executor.ExtResult {
	switch {
	case ctx.Err() != nil:
		return errResult("cancelled: the call to MCP server " + c.srv.Name + " was stopped")
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		why := fmt.Sprintf("no answer within %s: the server was killed and will be started again on the next call", timeout)
		ev := c.drop(sess, harness.MCPHung, why)
		m.record(call.Session, call.Branch, ev)
		return errResult(fmt.Sprintf("MCP server %s hung: %s", c.srv.Name, why))
	case errors.Is(err, sdk.ErrConnectionClosed) || sessionEnded(sess):
		why := "the server exited during the call"
		if exit := m.exitOf(c); exit != "" {
			why += " " + exit
		}
		ev := c.drop(sess, harness.MCPCrashed, why+"; it will be started again on the next call")
		ev.Stderr = m.h.Redact(ev.Stderr)
		m.record(call.Session, call.Branch, ev)
		return errResult(fmt.Sprintf("MCP server %s crashed: %s; it will be started again on the next call", c.srv.Name, why))
	}
	return errResult(fmt.Sprintf("MCP server %s: %v", c.srv.Name, err))
}

// exitOf waits briefly for a crashed server's exit status.
func (m *Manager) exitOf(c *conn) string {
	c.mu.Lock()
	cmd := c.cmd
	c.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return ""
	}
	for range 20 {
		if cmd.ProcessState != nil {
			return "(" + cmd.ProcessState.String() + ")"
		}
		time.Sleep(10 * time.Millisecond)
	}
	return ""
}

// sessionEnded reports whether a session's connection is gone.
func sessionEnded(sess *sdk.ClientSession) bool {
	done := make(chan struct{})
	go func() { sess.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(200 * time.Millisecond):
		return false
	}
}

// record appends an mcp.server event to a session (errors and stderr already redacted).
func (m *Manager) record(session, branch string, ev harness.MCPServer) {
	if session == "" {
		return
	}
	ev.Error, ev.Stderr = m.h.Redact(ev.Error), m.h.Redact(lastLines(ev.Stderr, 2000))
	_, _ = m.h.AppendOn(session, branch, harness.MustRecord(harness.TypeMCPServer, harness.ActorHarness, ev))
}

// recordNow records an mcp.server event in a session's current branch, for what happens
// outside any call (a server that exits between calls).
func (m *Manager) recordNow(session string, ev harness.MCPServer) {
	m.record(session, "", ev)
}

// Status lists the servers of the workspaces in use (and of workspace, loading its config
// without starting anything).
func (m *Manager) Status(workspace string) ([]Status, error) {
	p, err := m.pool(workspace)
	if err != nil || p == nil {
		return nil, err
	}
	var out []Status
	for _, c := range p.sorted() {
		st := c.status()
		st.Disabled = c.srv.Disabled
		out = append(out, st)
	}
	for _, b := range p.blocked {
		out = append(out, Status{Name: b.Name, Scope: b.Scope, Transport: b.Transport(), Target: b.Target(), State: StateUntrusted, Error: b.Untrusted})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Probe starts every enabled server of a workspace (those not running yet), for exo doctor and
// exo mcp ls --check, and returns their status.
func (m *Manager) Probe(ctx context.Context, workspace string) ([]Status, error) {
	p, err := m.pool(workspace)
	if err != nil || p == nil {
		return nil, err
	}
	m.startIdle(ctx, p, "", "")
	return m.Status(workspace)
}

// errResult is an error result for the model.
func errResult(msg string) executor.ExtResult { return executor.ExtResult{Text: msg, IsError: true} }

// lastLines keeps the end of s, at most n bytes.
func lastLines(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// schemaOf is a tool's input schema as JSON (an empty object schema when it has none).
func schemaOf(t *sdk.Tool) json.RawMessage {
	if t.InputSchema == nil {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	b, err := json.Marshal(t.InputSchema)
	if err != nil || !json.Valid(b) {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return b
}

// describe is the description offered to the model: which server, then the server's text.
func describe(server string, t *sdk.Tool) string {
	d := strings.TrimSpace(t.Description)
	if len(d) > 2000 {
		d = d[:2000] + "…"
	}
	return "[MCP server " + server + "] " + d
}
