package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"exo/harness"
)

// clientVersion is what exo tells servers it is.
const clientVersion = "1"

// conn is one configured server and its live connection, if any. A crashed or killed
// connection is dropped; the next use starts the server again.
type conn struct {
	srv Server

	mu          sync.Mutex
	sess        *sdk.ClientSession
	cmd         *exec.Cmd
	stderr      *tail
	tools       []*sdk.Tool
	state       string // "" (never started), connected, failed, crashed, hung, stopped
	err         string
	confinement string
	// hidden are the paths the server's command line names that its sandbox hides from it.
	hidden   []hiddenPath
	restarts int
	tried    time.Time
	gen      int // connection generation, to tell a stale session's end from the live one's
	// users are the sessions that used the server since it was configured (bounded): a crash
	// between calls is recorded in each.
	users map[string]bool
	// inflight counts calls under way: a crash during one is recorded by the call.
	inflight int
	// report records an mcp.server event in a session's current branch (nil records nothing).
	report func(session string, ev harness.MCPServer)
}

// maxUsers bounds the sessions a crash between calls is recorded in.
const maxUsers = 32

// use notes that a session uses the server.
func (c *conn) use(session string) {
	if session == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.users == nil {
		c.users = map[string]bool{}
	}
	if len(c.users) < maxUsers {
		c.users[session] = true
	}
}

// calling counts a call under way (+1 when it starts, -1 when it ends).
func (c *conn) calling(d int) {
	c.mu.Lock()
	c.inflight += d
	c.mu.Unlock()
}

// status is a snapshot of a connection for reports.
func (c *conn) status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Status{Name: c.srv.Name, Scope: c.srv.Scope, Transport: c.srv.Transport(), Target: c.srv.Target(),
		State: c.state, Tools: len(c.tools), Error: c.err, Confinement: c.confinement, Restarts: c.restarts}
}

// event is the mcp.server payload for the connection's current state.
func (c *conn) eventLocked(stderr string) harness.MCPServer {
	return harness.MCPServer{Server: c.srv.Name, State: c.state, Transport: c.srv.Transport(), Target: c.srv.Target(),
		Tools: len(c.tools), Confinement: c.confinement, Error: c.err, Stderr: stderr, Restarts: c.restarts}
}

// live returns the session, starting the server when there is none. started is set when this
// call (re)started it; ev is the event to record, if any.
func (c *conn) live(ctx context.Context, env connEnv) (sess *sdk.ClientSession, ev *harness.MCPServer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess != nil {
		return c.sess, nil
	}
	if c.state != "" {
		c.restarts++
	}
	c.tried = time.Now()
	if err := c.startLocked(ctx, env); err != nil {
		c.state, c.err, c.tools = harness.MCPFailed, env.redact(err.Error()), nil
		e := c.eventLocked(env.redact(c.stderr.String()))
		return nil, &e
	}
	c.state, c.err = harness.MCPConnected, ""
	e := c.eventLocked("")
	return c.sess, &e
}

// connEnv is what starting and calling a server needs from the pool.
type connEnv struct {
	resolver     Resolver
	launch       launchSpec
	startTimeout time.Duration
	redact       func(string) string
}

// startLocked starts the server, initializes the session and lists its tools.
func (c *conn) startLocked(ctx context.Context, env connEnv) error {
	c.stderr = newTail(8 << 10)
	cfg, err := env.resolver.Expanded(c.srv.ServerConfig)
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	transport, err := c.transport(cfg, env.launch)
	if err != nil {
		return err
	}
	c.gen++
	gen := c.gen
	client := sdk.NewClient(&sdk.Implementation{Name: "exo", Version: clientVersion}, &sdk.ClientOptions{
		Capabilities:           &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { c.refreshTools(gen) },
	})
	sctx, cancel := context.WithTimeout(ctx, env.startTimeout)
	defer cancel()
	sess, err := client.Connect(sctx, transport, nil)
	if err != nil {
		killGroup(c.cmd)
		return fmt.Errorf("start: %w%s%s", timeoutHint(sctx, err, env.startTimeout), hiddenHint(c.hidden, c.srv.Source), c.stderrHint())
	}
	tools, err := listTools(sctx, sess)
	if err != nil {
		killGroup(c.cmd)
		sess.Close()
		return fmt.Errorf("list tools: %w%s%s", timeoutHint(sctx, err, env.startTimeout), hiddenHint(c.hidden, c.srv.Source), c.stderrHint())
	}
	c.sess, c.tools = sess, tools
	go c.watch(sess, gen)
	return nil
}

// transport builds the SDK transport for the server's type.
func (c *conn) transport(cfg ServerConfig, ls launchSpec) (sdk.Transport, error) {
	switch cfg.Transport() {
	case TransportStdio:
		cmd, conf, hidden, err := command(c.srv.Name, cfg, ls)
		if err != nil {
			return nil, err
		}
		cmd.Stderr = c.stderr
		cmd.WaitDelay = 2 * time.Second
		c.cmd, c.confinement, c.hidden = cmd, conf, hidden
		return &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil
	case TransportHTTP:
		c.cmd, c.confinement = nil, "remote (http)"
		return &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: headerClient(cfg.Headers), MaxRetries: 1, DisableStandaloneSSE: true}, nil
	case TransportSSE:
		c.cmd, c.confinement = nil, "remote (sse)"
		return &sdk.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: headerClient(cfg.Headers)}, nil
	}
	return nil, fmt.Errorf("unknown transport %q", cfg.Type)
}

// listTools reads every page of the server's tools.
func listTools(ctx context.Context, sess *sdk.ClientSession) ([]*sdk.Tool, error) {
	if sess.InitializeResult() != nil && sess.InitializeResult().Capabilities != nil && sess.InitializeResult().Capabilities.Tools == nil {
		return nil, nil
	}
	var out []*sdk.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// refreshTools re-reads the tool list after the server said it changed.
func (c *conn) refreshTools(gen int) {
	c.mu.Lock()
	sess := c.sess
	if gen != c.gen || sess == nil {
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tools, err := listTools(ctx, sess)
	if err != nil {
		return
	}
	c.mu.Lock()
	if gen == c.gen {
		c.tools = tools
	}
	c.mu.Unlock()
}

// watch notices a session that ended by itself (the server exited or the connection broke).
// Between calls, the crash is recorded at once in the sessions that used the server (a crash
// during a call is recorded by the call); the next call starts the server again.
func (c *conn) watch(sess *sdk.ClientSession, gen int) {
	err := sess.Wait()
	c.mu.Lock()
	if gen != c.gen || c.sess != sess || c.state != harness.MCPConnected {
		c.mu.Unlock()
		return
	}
	c.sess = nil
	c.state = harness.MCPCrashed
	c.err = "the server exited between calls"
	if err != nil && !errors.Is(err, sdk.ErrConnectionClosed) {
		c.err += ": " + err.Error()
	}
	c.err += "; it will be started again on the next call"
	if c.inflight > 0 || c.report == nil {
		c.mu.Unlock()
		return
	}
	ev := c.eventLocked(c.stderr.String())
	users := make([]string, 0, len(c.users))
	for u := range c.users {
		users = append(users, u)
	}
	report := c.report
	c.mu.Unlock()
	for _, u := range users {
		report(u, ev)
	}
}

// drop ends the live session after a crash or hang, killing the server's processes.
func (c *conn) drop(sess *sdk.ClientSession, state, why string) harness.MCPServer {
	c.mu.Lock()
	cmd := c.cmd
	if c.sess == sess {
		c.sess = nil
		c.gen++
	}
	c.state, c.err = state, why
	ev := c.eventLocked(c.stderr.String())
	c.mu.Unlock()
	killGroup(cmd)
	go sess.Close() // reaps the process; never blocks the caller
	return ev
}

// close stops the server.
func (c *conn) close() {
	c.mu.Lock()
	sess, cmd := c.sess, c.cmd
	c.sess = nil
	c.gen++
	if c.state == harness.MCPConnected {
		c.state = harness.MCPStopped
	}
	c.mu.Unlock()
	if sess != nil {
		done := make(chan struct{})
		go func() { sess.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			killGroup(cmd)
		}
	}
}

// stderrHint appends the tail of the server's error output to a start failure.
func (c *conn) stderrHint() string {
	s := strings.TrimSpace(c.stderr.String())
	if s == "" {
		return ""
	}
	if len(s) > 600 {
		s = "…" + s[len(s)-600:]
	}
	return "; its stderr: " + s
}

// timeoutHint says when a start failed by running out of time.
func timeoutHint(ctx context.Context, err error, d time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %s (set MCP_TIMEOUT in ms for slower servers): %w", d, err)
	}
	return err
}

// headerClient is an HTTP client that adds the configured headers to every request.
func headerClient(h map[string]string) *http.Client {
	if len(h) == 0 {
		return nil
	}
	return &http.Client{Transport: headerTransport{h: h, base: http.DefaultTransport}}
}

// headerTransport adds headers.
type headerTransport struct {
	h    map[string]string
	base http.RoundTripper
}

// RoundTrip sets the headers on a copy of the request.
func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header.Set(k, v)
	}
	return t.base.RoundTrip(r)
}

// argsObject turns the model's arguments into the object MCP expects.
func argsObject(raw json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	if s := strings.TrimSpace(string(raw)); s == "" || s == "null" {
		return args, nil
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, fmt.Errorf("arguments are not a JSON object: %w", err)
	}
	return args, nil
}
