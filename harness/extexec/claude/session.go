package claude

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"exo/harness"
	"exo/harness/extexec"
	"exo/harness/provider"
	"exo/sandbox"
)

// session is one Claude process serving one exo session, with its endpoint and what its
// conversation corresponds to in exo's log.
type session struct {
	id       string
	dirs     extexec.Dirs
	proc     *extexec.Process
	conn     *conn
	ep       *extexec.Endpoint
	log      *extexec.Log
	tools    *extexec.HostTools
	mcp      *extexec.MCPServer
	claudeID string
	model    string
	// branch and viewLen say what Claude knows: the prompt view of branch, viewLen messages long.
	branch  string
	viewLen int
	native  *nativeCalls
}

// stop ends the process and the endpoint.
func (s *session) stop() error {
	if s.proc != nil {
		s.proc.Stop(3 * time.Second)
	}
	var err error
	if s.ep != nil {
		err = s.ep.Close()
	}
	if s.log != nil {
		s.log.Close()
	}
	return err
}

// alive reports whether the process still runs.
func (s *session) alive() bool { return s.proc != nil && !s.proc.Exited() }

// ready returns a Claude process whose conversation matches the session's log: the running one
// when nothing but user-side notes was added since its last turn (the notes are returned, to
// send with the prompt), else a new one resumed from a transcript of the prompt view.
func (e *Executor) ready(s *harness.Session) (*session, []string, error) {
	spec, err := e.h.Model(s.Settings["model"])
	if err != nil {
		return nil, nil, err
	}
	v, err := e.x.ViewOf(s.Branch, spec.ModelID)
	if err != nil {
		return nil, nil, err
	}
	msgs := append([]provider.Message(nil), v.Messages...)
	e.mu.Lock()
	cur := e.sessions[s.ID]
	e.mu.Unlock()
	if cur != nil && cur.alive() && cur.branch == s.Branch && cur.model == spec.Name && len(msgs) >= cur.viewLen {
		if notes, ok := userNotes(msgs[cur.viewLen:]); ok {
			return cur, notes, nil
		}
	}
	if cur != nil {
		_ = cur.stop()
	}
	next, err := e.start(s, spec, msgs)
	if err != nil {
		return nil, nil, err
	}
	e.mu.Lock()
	e.sessions[s.ID] = next
	e.mu.Unlock()
	return next, nil, nil
}

// userNotes returns the texts of msgs when all are user-side messages.
func userNotes(msgs []provider.Message) ([]string, bool) {
	var out []string
	for _, m := range msgs {
		if m.Role != provider.RoleUser {
			return nil, false
		}
		out = append(out, m.Text)
	}
	return out, true
}

// start launches claude for a session whose conversation so far is msgs.
func (e *Executor) start(s *harness.Session, spec harness.ModelSpec, msgs []provider.Message) (*session, error) {
	dirs, err := extexec.SessionDirs(e.h.Home(), Name, s.ID)
	if err != nil {
		return nil, err
	}
	up, err := extexec.OpenUpstream(e.h, spec.Name, provider.KindAnthropic)
	if err != nil {
		return nil, err
	}
	log := extexec.NewLog(e.h, s.ID, Name, spec)
	ep, err := extexec.NewEndpoint(log, up)
	if err != nil {
		return nil, err
	}
	sess := &session{id: s.ID, dirs: dirs, ep: ep, log: log, claudeID: newUUID(), model: spec.Name, branch: s.Branch,
		viewLen: len(msgs), native: newNativeCalls()}
	sess.tools = &extexec.HostTools{X: e.x, Log: log}
	sess.mcp = sess.tools.Server("exo")
	resume := len(msgs) > 0
	if resume {
		if err := writeTranscript(dirs.Config, s.Workspace, sess.claudeID, spec.ModelID, e.versionNumber(), msgs); err != nil {
			ep.Close()
			return nil, err
		}
	}
	ps := extexec.Spec{Path: e.bin, Args: e.args(s, spec, sess.claudeID, resume), Dir: s.Workspace,
		Env: e.env(dirs, ep, spec), StderrLog: dirs.Stderr}
	if e.opts.NativeTools {
		ps.Confine, ps.Caps = e.confinement(s, dirs), e.h.Capabilities()
	}
	proc, err := extexec.Start(ps)
	if err != nil {
		ep.Close()
		return nil, err
	}
	sess.proc = proc
	sess.conn = newConn(proc, handlers{mcp: sess.mcpMessage, spent: log.AddOverhead, canUse: func(ctx context.Context, r controlRequest) permission {
		return e.canUse(ctx, sess, r)
	}})
	go func() { // initialize registers exo's in-band MCP server; its answer is not awaited
		_, _ = sess.conn.request("initialize", map[string]any{"hooks": map[string]any{}, "sdkMcpServers": []string{"exo"}}, time.Minute)
	}()
	return sess, nil
}

// mcpMessage hands a message for the in-band MCP server to exo's tool server.
func (s *session) mcpMessage(ctx context.Context, server string, msg json.RawMessage) json.RawMessage {
	if server != "exo" {
		return json.RawMessage(`{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"exo serves only the exo MCP server"}}`)
	}
	return s.mcp.Handle(ctx, msg)
}

// versionNumber is the version without the product name ("2.1.330").
func (e *Executor) versionNumber() string {
	v, _, _ := strings.Cut(e.version, " ")
	return v
}

// mcpConfig declares exo's tools as an in-band (SDK) MCP server.
const mcpConfig = `{"mcpServers":{"exo":{"type":"sdk","name":"exo"}}}`

// args builds claude's arguments.
func (e *Executor) args(s *harness.Session, spec harness.ModelSpec, id string, resume bool) []string {
	a := []string{"-p", "--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
		"--permission-prompt-tool", "stdio", "--include-partial-messages",
		"--mcp-config", mcpConfig, "--strict-mcp-config", "--setting-sources", "user",
		"--model", spec.ModelID, "--append-system-prompt", e.systemExtra(s)}
	if !e.opts.NativeTools {
		a = append(a, "--tools", "")
	}
	if resume {
		a = append(a, "--resume", id)
	} else {
		a = append(a, "--session-id", id)
	}
	return append(a, e.opts.ExtraArgs...)
}

// systemExtra tells Claude where it runs, plus the session's governance rules.
func (e *Executor) systemExtra(s *harness.Session) string {
	var b strings.Builder
	b.WriteString("You are running inside exo, a harness that records every step and can fork and rewind the session.")
	if e.opts.NativeTools {
		b.WriteString(" Each tool use is approved by exo; writes outside the workspace and the session's scope are refused.")
	} else {
		fmt.Fprintf(&b, " Your tools are exo's (the mcp__exo__ tools): bash runs in exo's persistent sandboxed shell in %s, and the file tools work inside that workspace and the session's scope.", s.Workspace)
	}
	if extra := e.opts.Exec.SystemExtra; extra != nil {
		if x := extra(s.ID); x != "" {
			b.WriteString("\n\n" + x)
		}
	}
	if x := e.x.SessionStartContext(context.Background(), s.ID); x != "" {
		b.WriteString("\n\n# Context from SessionStart hooks\n\n" + x)
	}
	return b.String()
}

// env is what claude's environment holds beyond locale and PATH: isolated folders, the loopback
// endpoint and its token, and the traffic switches. Nothing else of exo's environment.
func (e *Executor) env(d extexec.Dirs, ep *extexec.Endpoint, spec harness.ModelSpec) map[string]string {
	url, token := "", ""
	if ep != nil {
		url, token = ep.URL(), ep.Token()
	}
	return map[string]string{
		"HOME": d.Home, "CLAUDE_CONFIG_DIR": d.Config, "CLAUDE_CODE_TMPDIR": d.Tmp, "TMPDIR": d.Tmp,
		"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": token,
		"ANTHROPIC_MODEL": spec.ModelID, "ANTHROPIC_SMALL_FAST_MODEL": spec.ModelID, "ANTHROPIC_DEFAULT_HAIKU_MODEL": spec.ModelID,
		"ANTHROPIC_DEFAULT_SONNET_MODEL": spec.ModelID, "ANTHROPIC_DEFAULT_OPUS_MODEL": spec.ModelID,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1",
		"DISABLE_ERROR_REPORTING": "1", "CLAUDE_CODE_MAX_RETRIES": strconv.Itoa(e.opts.MaxRetries),
	}
}

// confinement is how claude runs with native tools: under exo's confinement helper, writing only
// to the workspace and its state folder, with exo's own files (the sealed secrets' key, the log,
// other sessions' state) hidden where a mount namespace allows. Its network stays on: it must
// reach exo's endpoint; its web tools follow the session's network setting through approvals.
func (e *Executor) confinement(s *harness.Session, d extexec.Dirs) *sandbox.Config {
	cfg := &sandbox.Config{Workspace: s.Workspace, TmpDir: d.Tmp, Network: true, Fallback: sandbox.RunUnconfined,
		Helper: e.h.SandboxHelper(), ExtraWritable: []string{d.Root},
		MaskPaths: append(append([]string{}, sandbox.DefaultMaskPaths...), exoHomeMasks(e.h.Home(), d.Root)...)}
	if s.Settings["isolation"] == "strict" {
		cfg.Fallback = sandbox.Refuse
	}
	return cfg
}

// exoHomeMasks lists what of EXO_HOME to hide from a confined agent: everything but the path to
// its own state folder.
func exoHomeMasks(home, keep string) []string {
	var out []string
	var walk func(dir string)
	walk = func(dir string) {
		entries, _ := os.ReadDir(dir)
		for _, en := range entries {
			p := filepath.Join(dir, en.Name())
			switch {
			case p == keep:
			case strings.HasPrefix(keep, p+string(filepath.Separator)):
				walk(p)
			default:
				out = append(out, p)
			}
		}
	}
	walk(home)
	return out
}
